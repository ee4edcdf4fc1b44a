"""Hostile input to ``atlas check``, export reading and ``atlas diff``: a clean error, no crash.

Each test names what the old code did: a quadratic line locator, a MemoryError traceback on a
literal over 16 MiB, a KeyError or RecursionError on an export that passed validation, and
'could not run' (exit 2) for data errors of an export.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Self

import pytest

from atlas.cli import main
from atlas.data import _json, export
from atlas.data._locator import Locator
from atlas.errors import DatasetError
from atlas.publish import diff
from checkkit import MINI, copy_mini, snapshot

NAMESPACE = "https://x.org/s/"
HEAD = f"@prefix s: <{NAMESPACE}> .\n@prefix ea: <https://w3id.org/execution-atlas/vocab#> .\n"
MINI_EXPORT = (MINI / "atlas.json").read_text(encoding="utf-8")


class CountingText(str):
    """A text that counts the characters its own methods read (``find``, ``splitlines``...)."""

    __slots__ = ("read",)
    read: int

    def __new__(cls, text: str) -> Self:
        made = super().__new__(cls, text)
        made.read = 0
        return made

    def _span(self, start: Any, end: Any) -> int:
        first, last, _ = slice(start, end).indices(len(self))
        return max(0, last - first)

    def find(self, sub: str, start: Any = None, end: Any = None) -> int:
        self.read += self._span(start, end)
        return super().find(sub, start, end)

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:
        self.read += self._span(start, end)
        return super().count(sub, start, end)

    def splitlines(self, keepends: bool = False) -> list[str]:  # noqa: FBT001, FBT002
        self.read += len(self)
        return super().splitlines(keepends)


def _triples(count: int, separator: str) -> str:
    return HEAD + separator.join(f"s:n{i} ea:p s:o{i} ." for i in range(count)) + "\n"


def _scanned(text: str, iri: str) -> int | None:
    """The line of ``iri`` found by looking at every line (as the old locator did)."""
    needles = [f"<{iri}>"] + [
        f"{prefix}:{iri[len(namespace) :]}"
        for prefix, namespace in Locator(text).prefixes.items()
        if iri.startswith(namespace) and len(iri) > len(namespace)
    ]
    for starts in (True, False):
        for number, line in enumerate(text.splitlines(), start=1):
            stripped = line.strip()
            for needle in needles:
                if starts and stripped.startswith(needle):
                    if stripped[len(needle) : len(needle) + 1] in ("", " ", "\t", ";"):
                        return number
                elif not starts and needle in stripped:
                    return number
    return None


# --- the line locator ----------------------------------------------------------------------


@pytest.mark.parametrize("separator", [" ", "\n"], ids=["one-line", "one-per-line"])
def test_the_locator_reads_the_text_a_bounded_number_of_times(separator: str) -> None:
    # the old locator searched the whole text for each resource not at the start of a line:
    # 20,000 triples on one line read the text 40,000 times
    count = 20_000
    text = CountingText(_triples(count, separator))
    locator = Locator(text)
    lines = [locator.line_of(f"{NAMESPACE}n{i}") for i in range(count)]
    objects = [locator.line_of(f"{NAMESPACE}o{i}") for i in range(0, count, 97)]
    assert lines == ([3] * count if separator == " " else list(range(3, count + 3)))
    assert objects == ([3] * len(objects) if separator == " " else list(range(3, count + 3, 97)))
    assert text.read <= 8 * len(text)


def test_a_long_first_line_costs_the_locator_a_few_passes_at_most() -> None:
    # every resource is on line 4, after a long comment: an exact search for it in the lines
    # before (a mention inside a longer word) stops at a few passes over the text
    count = 5_000
    text = HEAD + "# " + "x" * 200_000 + "\n" + _triples(count, " ")[len(HEAD) :]
    locator = Locator(text)
    assert {locator.line_of(f"{NAMESPACE}n{i}") for i in range(count)} == {4}
    assert locator.scanned <= Locator.SCAN_PASSES * len(text) + Locator.SCAN_EXTRA


def test_the_locator_answers_each_resource_from_its_index_once() -> None:
    text = CountingText(_triples(100, " "))
    locator = Locator(text)
    assert locator.line_of(f"{NAMESPACE}n5") == 3
    read = text.read
    for _ in range(1_000):
        assert locator.line_of(f"{NAMESPACE}n5") == 3
        assert locator.line_of(f"{NAMESPACE}o7") == 3
    assert text.read <= read + len(text)


def test_the_locator_finds_namespaces_among_many_prefixes() -> None:
    # one prefix per namespace, nested: each lookup bisects the namespaces, not tries each
    prefixes = "".join(f"@prefix p{i}: <https://x.org/{'a/' * i}> .\n" for i in range(300))
    body = "p7:x p0:y p299:z .\np3:a/a/q 1 .\n<https://x.org/a/a/w> p12:v 2 .\n"
    text = prefixes + body
    locator = Locator(text)
    for iri in (
        "https://x.org/" + "a/" * 7 + "x",
        "https://x.org/y",
        "https://x.org/" + "a/" * 299 + "z",
        "https://x.org/a/a/a/a/a/q",
        "https://x.org/a/a/w",
        "https://x.org/" + "a/" * 12 + "v",
        "https://x.org/nowhere",
    ):
        assert locator.line_of(iri) == _scanned(text, iri), iri


def test_a_mention_inside_a_longer_word_is_still_found_first() -> None:
    text = HEAD + 's:x ea:p "see s:ab" .\ns:y ea:p s:a .\n'
    assert Locator(text).line_of(f"{NAMESPACE}a") == 3 == _scanned(text, f"{NAMESPACE}a")


# --- Turtle: a literal over 16 MiB ---------------------------------------------------------


def _check_line(folder: Path, capsys: pytest.CaptureFixture[str], expect: str) -> str:
    before = snapshot(folder)
    status = main(["check", "--dataset", str(folder)])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert "Traceback" not in out + err
    assert snapshot(folder) == before
    (line,) = [line for line in out.splitlines() if expect in line]
    return line


def test_a_literal_over_16_mib_is_a_violation_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # pyoxigraph's reader holds 16 MiB of one term: the old code let its MemoryError through
    folder = copy_mini(tmp_path)
    toy = folder / "toy.ttl"
    text = toy.read_text(encoding="utf-8")
    old = '"An accelerator."'
    assert text.count(old) == 1
    toy.write_text(text.replace(old, '"' + "x" * (17 * 1024 * 1024) + '"'), encoding="utf-8")
    line = _check_line(folder, capsys, "longer than 16 MiB")
    number = text.splitlines().index('    rdf:value "An accelerator." ;') + 1
    assert f"{toy}:{number}: violation: Turtle syntax error" in line


def test_a_literal_over_16_mib_once_escaped_is_a_violation_of_its_resource(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 3 MiB of control characters read in Turtle, but take 18 MiB in the N-Triples that the
    # SHACL engine reads (each is written \u0001): the old code said 'could not run' (exit 2)
    folder = copy_mini(tmp_path)
    toy = folder / "toy.ttl"
    text = toy.read_text(encoding="utf-8")
    toy.write_text(
        text.replace('"An accelerator."', '"' + "\x01" * (3 * 1024 * 1024) + '"'),
        encoding="utf-8",
    )
    line = _check_line(folder, capsys, "written in N-Triples, longer than 16 MiB")
    number = text.splitlines().index("claim:stage-toy-gpu-1 a ea:Claim ;") + 1
    assert (
        f"{toy}:{number}: violation: https://w3id.org/execution-atlas/claim/stage-toy-gpu-1:"
        in line
    )


def test_a_turtle_file_that_is_not_utf_8_is_a_violation_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the old code: 'could not run' (exit 2), as if the data were an argument error
    folder = copy_mini(tmp_path)
    toy = folder / "toy.ttl"
    data = toy.read_bytes()
    number = data.count(b"\n", 0, data.index(b'"An accelerator."')) + 1
    toy.write_bytes(data.replace(b'"An accelerator."', b'"An \xff accelerator."'))
    line = _check_line(folder, capsys, "not UTF-8 text: invalid start byte at byte")
    assert f"{toy}:{number}: violation: Turtle file refused" in line


# --- exports -------------------------------------------------------------------------------


def _export(tmp_path: Path, text: str | bytes, name: str = "bad.json") -> Path:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return path


def _mini_with(old: str, new: str) -> str:
    assert MINI_EXPORT.count(old) == 1, old
    return MINI_EXPORT.replace(old, new)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


DEEP = '"@version": ' + "[" * 1_000 + "]" * 1_000
BAD_EXPORTS: dict[str, tuple[str | bytes, str, str]] = {
    # name: (the file, what the one problem says, text on the line it names)
    "nested-1000-deep": (
        _mini_with('"@version": 1.1', DEEP),
        "nested more than 64 levels deep",
        DEEP,
    ),
    "nested-65-deep": (
        _mini_with('"@version": 1.1', '"@version": ' + "[" * 65 + "]" * 65),
        "nested more than 64 levels deep",
        '"@version": [[[',
    ),
    "nan": (_mini_with('"@version": 1.1', '"@version": NaN'), "NaN is not a JSON number", "NaN"),
    "infinite-float": (
        _mini_with('"witnesses": 0', '"witnesses": 1e999'),
        "the number 1e999 is too large for a float",
        "1e999",
    ),
    "5000-digits": (
        _mini_with('"witnesses": 0', '"witnesses": ' + "9" * 5_000),
        "a number of 5000 characters",
        "9999",
    ),
    "invalid-utf-8": (
        _mini_with('"The Toy Guide"', '"The \udcff Toy Guide"').encode("utf-8", "surrogateescape"),
        "not UTF-8 text: invalid start byte at byte",
        '"title": "The ',
    ),
    "lone-surrogate": (
        _mini_with('"The Toy Guide"', '"The \\udcff Toy Guide"'),
        "/sources/0(toy-guide)/title: a string holds a lone surrogate",
        "Toy Guide",
    ),
    "dangling-to": (
        _mini_with('"to": "toy-gpu",', '"to": "nowhere",'),
        "/steps/4(toy-compiler-targets-gpu)/to: no stage has the id 'nowhere'",
        '"nowhere"',
    ),
    "dangling-source": (
        _mini_with(
            '"source": "https://example.org/toy/guide.html",\n      "support": "partial",\n'
            '      "supportNote": "Does not say where they run."',
            '"source": "https://example.org/toy/lost.html",\n      "support": "partial",\n'
            '      "supportNote": "Does not say where they run."',
        ),
        "no source has the URL <https://example.org/toy/lost.html>",
        "lost.html",
    ),
    "duplicate-id": (
        _mini_with('"id": "toy-spec",', '"id": "toy-guide",'),
        "/sources/1(toy-guide)/id: duplicate id 'toy-guide', also at /sources/0(toy-guide)",
        '"id": "toy-guide",\n      "primary": false',
    ),
    "stage-in-no-atlas": (
        _mini_with(
            '"atlases": [\n        "toy"\n      ],\n      "citations": [],\n'
            '      "claims": [\n        {\n          "citations": [],\n'
            '          "id": "stage-toy-cpu-1",',
            '"atlases": [],\n      "citations": [],\n'
            '      "claims": [\n        {\n          "citations": [],\n'
            '          "id": "stage-toy-cpu-1",',
        ),
        "/stages/3(toy-cpu): is part of no atlas",
        '"id": "toy-cpu"',
    ),
}


def _expected_line(text: str | bytes, needle: str) -> int:
    shown = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    first = needle.split("\n", 1)[0]
    if "\n" in needle:  # the line of the first line of a text that spans lines
        return shown[: shown.index(needle)].count("\n") + 1
    return _line_of(shown, first)


@pytest.mark.parametrize("case", BAD_EXPORTS, ids=list(BAD_EXPORTS))
def test_reading_a_bad_export_is_one_dataset_error_with_its_line(tmp_path: Path, case: str) -> None:
    # the old code: RecursionError, ValueError, UnicodeDecodeError, a silent NaN, or a
    # document that 'atlas site build' then failed on with a KeyError or an IndexError
    text, expect, at = BAD_EXPORTS[case]
    path = _export(tmp_path, text)
    with pytest.raises(DatasetError) as caught:
        export.read(path)
    problems = [p for p in caught.value.problems if expect in p.message]
    assert problems, caught.value.problems
    assert (problems[0].file, problems[0].line) == (str(path), _expected_line(text, at))


@pytest.mark.parametrize("case", BAD_EXPORTS, ids=list(BAD_EXPORTS))
def test_atlas_check_reports_a_bad_export_as_a_violation_not_could_not_run(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expect, at = BAD_EXPORTS[case]
    path = _export(tmp_path, text)
    status = main(["check", "--dataset", str(MINI), "--export", str(path)])
    out, err = capsys.readouterr()
    assert status == 1, out + err
    assert err == ""
    assert f"{path}:{_expected_line(text, at)}: violation: " in out
    assert expect in out


@pytest.mark.parametrize("case", ["nested-1000-deep", "invalid-utf-8", "dangling-to", "nan"])
@pytest.mark.parametrize("command", ["diff-old", "diff-new", "site"])
def test_diff_and_site_build_end_in_one_line_on_a_bad_export(
    tmp_path: Path, case: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text, expect, _ = BAD_EXPORTS[case]
    path = str(_export(tmp_path, text))
    good = str(MINI / "atlas.json")
    argv = {
        "diff-old": ["diff", path, good],
        "diff-new": ["diff", good, path],
        "site": ["site", "build", str(tmp_path / "site"), "--export", path],
    }[command]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 1
    assert out == ""
    assert err.count("\n") == 1
    assert f"{path}:" in err
    assert expect in err


def test_diff_files_names_the_file_with_the_dangling_reference(tmp_path: Path) -> None:
    text, expect, _ = BAD_EXPORTS["dangling-to"]
    bad = _export(tmp_path, text)
    with pytest.raises(DatasetError, match=r"/steps/4\(toy-compiler-targets-gpu\)/to") as caught:
        diff.diff_files(MINI / "atlas.json", bad)
    assert caught.value.source == str(bad)
    assert expect in caught.value.problems[0].message


def test_an_export_over_the_size_limit_is_refused_unread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_json, "MAX_EXPORT_BYTES", 1_000)
    path = _export(tmp_path, MINI_EXPORT)
    with pytest.raises(DatasetError, match="over the limit of 1000 bytes"):
        export.read(path)


def test_an_export_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="not a regular file"):
        export.read(tmp_path)


def test_strict_json_still_reads_every_valid_export() -> None:
    text, data = _json.load_json(MINI_EXPORT.encode("utf-8"), "atlas.json")
    assert text == MINI_EXPORT
    assert data == json.loads(MINI_EXPORT)
    deepest = '{"a": ' * 63 + "[1.5e300, -0, 12345678901234567890]" + "}" * 63
    assert _json.load_json(deepest.encode(), "x.json")[1] is not None
