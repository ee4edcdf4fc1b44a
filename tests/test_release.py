"""The release: every file into a new folder, SHA256SUMS, the DCAT description, whole or absent.

The files of the dataset are made from the mini fixture with four distributions; the script's
wheel and sdist are small fakes, except in the one slow test that runs ``python -m build``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pyoxigraph
import pytest

from atlas.data import _releasefolder, export, release
from atlas.errors import DatasetError
from atlas.models import AtlasDocument
from checkkit import MINI, changed_export

ROOT = Path(__file__).resolve().parents[1]
IANA = "https://www.iana.org/assignments/media-types/"
MINI_DOC = AtlasDocument.model_validate_json((MINI / "atlas.json").read_bytes())
VERSION = MINI_DOC.version  # 1.2.3
DOWNLOAD = f"https://example.org/dl/data-{VERSION}/"
DISTRIBUTIONS = {  # name -> (title, media type)
    f"mini-{VERSION}.ttl": ("Turtle", "text/turtle"),
    f"mini-{VERSION}.nt": ("N-Triples", "application/n-triples"),
    f"mini-{VERSION}.jsonld": ("JSON-LD", "application/ld+json"),
    f"mini-{VERSION}.json": ("JSON export", "application/json"),
}
SCHEMA_FILES = {
    f"execution-atlas-{VERSION}.schema.json": ROOT / "schema" / "atlas.schema.json",
    f"execution-atlas-{VERSION}.shapes.ttl": ROOT / "schema" / "shapes.ttl",
}
DCAT_NAME = f"execution-atlas-{VERSION}.dcat.ttl"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release_script", ROOT / "scripts" / "release.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


script = _load_script()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    """A copy of the mini dataset whose catalogue names four distributions."""
    folder = tmp_path / "dataset"
    shutil.copytree(MINI, folder)
    files = [
        {"title": title, "mediaType": IANA + media, "downloadURL": DOWNLOAD + name}
        for name, (title, media) in DISTRIBUTIONS.items()
    ]
    export.write(changed_export(MINI_DOC, distributions=files), folder / "atlas.json")
    return folder


def _write(dataset: Path, out: Path) -> Path:
    return release.write_release(out, *release.dataset_release(dataset))


def _described(folder: Path) -> dict[str, dict[str, Any]]:
    """What the DCAT description in ``folder`` says of each file, read with pyoxigraph alone."""
    store = pyoxigraph.Store()
    store.load(path=str(folder / DCAT_NAME), format=pyoxigraph.RdfFormat.TURTLE)
    query = """
        PREFIX dcat: <http://www.w3.org/ns/dcat#>
        PREFIX spdx: <http://spdx.org/rdf/terms#>
        SELECT ?release ?version ?url ?media ?size ?algorithm ?value WHERE {
          ?release a dcat:Dataset ; dcat:version ?version ; dcat:distribution ?file .
          ?file a dcat:Distribution ; dcat:downloadURL ?url ; dcat:mediaType ?media ;
            dcat:byteSize ?size ;
            spdx:checksum [ spdx:algorithm ?algorithm ; spdx:checksumValue ?value ] .
        }"""
    found: dict[str, dict[str, Any]] = {}
    for row in store.query(query):  # type: ignore[union-attr]
        name = row["url"].value.rsplit("/", 1)[-1]
        assert name not in found, f"{name} described twice"
        found[name] = {key: row[key].value for key in ("release", "version", "url", "media")}
        found[name] |= {
            "size": int(row["size"].value),
            "algorithm": row["algorithm"].value,
            "sha256": row["value"].value,
        }
    return found


# --- the dataset's files, SHA256SUMS and the DCAT description --------------------------------


def test_the_release_holds_every_file_named_with_the_data_version(
    dataset: Path, tmp_path: Path
) -> None:
    out = _write(dataset, tmp_path / "out")
    names = {p.name for p in out.iterdir()}
    assert names == {*DISTRIBUTIONS, *SCHEMA_FILES, DCAT_NAME, "SHA256SUMS"}
    for name, source in SCHEMA_FILES.items():
        assert (out / name).read_bytes() == source.read_bytes()
    assert (out / f"mini-{VERSION}.json").read_bytes() == (dataset / "atlas.json").read_bytes()
    assert "toy-interpreter" in (out / f"mini-{VERSION}.ttl").read_text(encoding="utf-8")
    assert release.verify_release(out) == []


def test_sha256sums_lists_every_other_file_in_the_format_sha256sum_reads(
    dataset: Path, tmp_path: Path
) -> None:
    out = _write(dataset, tmp_path / "out")
    lines = (out / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    listed = {line.split("  ", 1)[1]: line.split("  ", 1)[0] for line in lines}
    assert set(listed) == {p.name for p in out.iterdir()} - {"SHA256SUMS"}
    for name, digest in listed.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name
    if shutil.which("sha256sum"):  # GNU coreutils: the reader the format is for
        checked = subprocess.run(
            ["sha256sum", "--check", "--strict", "SHA256SUMS"],
            cwd=out,
            capture_output=True,
            text=True,
            check=False,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert checked.stdout.count(": OK") == len(listed)


def test_the_dcat_names_every_file_with_its_checksum_size_and_media_type(
    dataset: Path, tmp_path: Path
) -> None:
    out = _write(dataset, tmp_path / "out")
    described = _described(out)
    assert set(described) == {p.name for p in out.iterdir()} - {"SHA256SUMS", DCAT_NAME}
    for name, said in described.items():
        data = (out / name).read_bytes()
        assert said["size"] == len(data), name
        assert said["sha256"] == hashlib.sha256(data).hexdigest(), name
        assert said["algorithm"] == "http://spdx.org/rdf/terms#checksumAlgorithm_sha256"
        assert said["url"] == DOWNLOAD + name
        assert said["release"] == f"https://w3id.org/execution-atlas/dataset/{VERSION}"
        assert said["version"] == VERSION
    for name, (_, media) in DISTRIBUTIONS.items():
        assert described[name]["media"] == IANA + media


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda out: (out / f"mini-{VERSION}.nt").write_bytes(b""), "SHA-256 differs"),
        (lambda out: (out / f"mini-{VERSION}.ttl").unlink(), "which is missing"),
        (lambda out: (out / "extra.txt").write_text("x"), "does not list 'extra.txt'"),
        (lambda out: (out / "SHA256SUMS").write_text("nonsense\n"), "not '<sha256 hex>"),
        (lambda out: (out / DCAT_NAME).write_text("<a> <b"), "not Turtle"),
        (lambda out: (out / DCAT_NAME).unlink(), "one DCAT description"),
    ],
)
def test_verifying_finds_what_changed_in_the_folder(
    dataset: Path, tmp_path: Path, change: Any, message: str
) -> None:
    out = _write(dataset, tmp_path / "out")
    change(out)
    problems = release.verify_release(out)
    assert any(message in p.message for p in problems), problems


def test_verifying_compares_the_dcat_with_the_files(dataset: Path, tmp_path: Path) -> None:
    out = _write(dataset, tmp_path / "out")
    name = f"mini-{VERSION}.nt"
    text = (out / DCAT_NAME).read_text(encoding="utf-8")
    size = f'"{(out / name).stat().st_size}"'
    (out / DCAT_NAME).write_text(text.replace(size, '"1"', 1), encoding="utf-8")
    sums = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "SHA256SUMS"}
    (out / "SHA256SUMS").write_text(_releasefolder.sha256sums(sums), encoding="utf-8")
    problems = release.verify_release(out)
    assert [p.message for p in problems] == [f"{name!r}: byteSize 1 but {len(sums[name])} bytes"]


# --- whole or absent -------------------------------------------------------------------------


def test_a_failure_midway_leaves_no_output_folder(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written: list[str] = []
    real = _releasefolder._write_file

    def failing(path: Path, data: bytes) -> None:
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        written.append(path.name)
        real(path, data)

    monkeypatch.setattr(_releasefolder, "_write_file", failing)
    with pytest.raises(OSError, match="No space left"):
        _write(dataset, tmp_path / "out")
    assert written  # it failed midway, not at once
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset"]  # no folder, no leftover
    assert release.main(["--dataset", str(dataset), str(tmp_path / "out")]) == 3
    assert not (tmp_path / "out").exists()


def test_a_release_that_does_not_verify_is_not_written(
    dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = release.describe
    monkeypatch.setattr(release, "describe", lambda r, files: real(r, list(files)[1:]))
    with pytest.raises(DatasetError, match="distributions name it"):
        _write(dataset, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset"]


def test_the_output_folder_must_be_new_or_empty(dataset: Path, tmp_path: Path) -> None:
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("mine")
    with pytest.raises(release.ReleaseFolderError, match="holds files"):
        _write(dataset, full)
    assert [p.name for p in full.iterdir()] == ["keep.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "SHA256SUMS" in {p.name for p in _write(dataset, empty).iterdir()}


def test_what_a_killed_release_left_is_removed_by_the_next(dataset: Path, tmp_path: Path) -> None:
    left = tmp_path / ".out.abcd1234.partial"
    left.mkdir()
    (left / "half.nt").write_text("<a>")
    old = time.time() - 60
    os.utime(left, (old, old))
    _write(dataset, tmp_path / "out")
    assert not left.exists()


def test_python_m_atlas_data_release_writes_the_release(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert release.main(["--dataset", str(dataset), str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.count("wrote ") == len(DISTRIBUTIONS) + len(SCHEMA_FILES) + 2
    assert release.main(["--dataset", str(dataset), str(out)]) == 1  # not over a release
    assert "holds files" in capsys.readouterr().out


# --- the release script: wheel, sdist, changes, checks ---------------------------------------


def _fake_build(root: Path, outdir: Path, *, isolation: bool = True) -> list[Path]:
    """A wheel and an sdist with what a release checks in them, made in no time."""
    version = script.project().version
    stem = f"execution_atlas-{version}"
    wheel = io.BytesIO()
    with zipfile.ZipFile(wheel, "w") as archive:
        for name in ("atlas/__init__.py", "atlas/_data/dataset/atlas.json", "atlas/_data/schema/"):
            archive.writestr(name, "")
        archive.writestr(
            f"{stem}.dist-info/METADATA", f"Name: execution-atlas\nVersion: {version}\n"
        )
    (outdir / f"{stem}-py3-none-any.whl").write_bytes(wheel.getvalue())
    with tarfile.open(outdir / f"{stem}.tar.gz", "w:gz") as archive:
        for need in script.SDIST_NEEDS:
            archive.addfile(tarfile.TarInfo(f"{stem}/{need}"), io.BytesIO(b""))
    return sorted(outdir.iterdir())


@pytest.fixture
def released(dataset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The script's arguments for the mini dataset, with a changelog and a previous export."""
    monkeypatch.setattr(script, "build_distributions", _fake_build)
    version = script.project().version
    changelog = tmp_path / "CHANGELOG.md"
    changelog.write_text(f"## [{version}] - 2026-12-04\n\n### Data {VERSION} — toys\n")
    previous = tmp_path / "previous.json"
    data = export.to_data(MINI_DOC)
    data["version"] = "1.1.0"
    for stage in data["stages"]:
        if stage["id"] == "toy-gpu":
            stage["label"] = "graphics card"  # relabelled since: a minor change
    previous.write_text(json.dumps(data), encoding="utf-8")
    args = ["--dataset", str(dataset), "--changelog", str(changelog), "--previous", str(previous)]
    return {"args": args, "changelog": changelog, "previous": previous, "version": version}


def test_the_script_writes_the_package_the_data_and_its_changes(
    released: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert script.main([*released["args"], str(out)]) == 0, capsys.readouterr().err
    version = released["version"]
    wheel, sdist = (
        f"execution_atlas-{version}-py3-none-any.whl",
        f"execution_atlas-{version}.tar.gz",
    )
    assert {wheel, sdist, "CHANGES-data.md", *DISTRIBUTIONS} <= {p.name for p in out.iterdir()}
    changes = (out / "CHANGES-data.md").read_text(encoding="utf-8")
    assert "1.1.0 to 1.2.3" in changes
    assert "### Changed" in changes
    assert "toy-gpu" in changes
    described = _described(out)
    package = f"https://github.com/execution-atlas/execution-atlas/releases/download/v{version}/"
    assert described[wheel]["url"] == package + wheel
    assert described[sdist]["media"] == IANA + "application/gzip"
    assert described["CHANGES-data.md"]["url"] == DOWNLOAD + "CHANGES-data.md"
    assert release.verify_release(out) == []
    dcat = (out / DCAT_NAME).read_text(encoding="utf-8")
    assert "dcat:previousVersion <https://w3id.org/execution-atlas/dataset/1.1.0>" in dcat
    printed = capsys.readouterr().out
    assert f"git tag -a v{version}" in printed
    assert f"git tag -a data-{VERSION}" in printed


def test_the_dry_run_builds_checks_and_lists_the_wheel_then_removes_it(
    released: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert script.main(["--dry-run", *released["args"]]) == 0
    printed = capsys.readouterr().out
    assert "atlas/_data/dataset/atlas.json" in printed  # the wheel's contents
    assert "checked: SHA256SUMS verifies" in printed
    assert "git tag" not in printed
    built = [line.split()[1] for line in printed.splitlines() if line.startswith("built ")]
    assert len(built) == len(DISTRIBUTIONS) + len(SCHEMA_FILES) + 5  # +wheel, sdist, changes...
    assert not any(Path(path).exists() for path in built)  # the temporary folder is gone


def test_a_release_without_its_changelog_sections_is_refused(
    released: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released["changelog"].write_text("## [Unreleased]\n")
    out = tmp_path / "out"
    assert script.main([*released["args"], str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert f"no section '## [{released['version']}]'" in err
    assert f"no section '### Data {VERSION}'" in err
    assert script.main(["--dry-run", *released["args"]]) == 1  # built all the same, and said
    assert "no section" in capsys.readouterr().err


def test_a_data_version_too_low_for_the_changes_is_refused(
    released: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(released["previous"].read_text(encoding="utf-8"))
    data["version"] = "1.2.2"  # a stage was relabelled since: 1.3.0 at least
    released["previous"].write_text(json.dumps(data), encoding="utf-8")
    assert script.main([*released["args"], str(tmp_path / "out")]) == 1
    assert "use at least '1.3.0'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_failed_build_writes_nothing(
    released: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    def broken(root: Path, outdir: Path, *, isolation: bool = True) -> list[Path]:
        (outdir / "execution_atlas-0.0.0.tar.gz").write_bytes(b"")
        return sorted(outdir.iterdir())

    monkeypatch.setattr(script, "build_distributions", broken)
    assert script.main([*released["args"], str(tmp_path / "out")]) == 3
    assert "one execution_atlas-" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_script_needs_a_folder_unless_it_is_a_dry_run(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exit_:
        script.main([])
    assert exit_.value.code == 2
    assert "OUT is required" in capsys.readouterr().err


@pytest.mark.slow
def test_the_dry_run_builds_the_real_wheel_and_sdist(tmp_path: Path) -> None:
    pytest.importorskip("build", reason="python -m build is in the dev extra")
    # the installed hatchling builds offline; without it, build makes an environment with pip
    offline = importlib.util.find_spec("hatchling") is not None
    changelog = tmp_path / "CHANGELOG.md"  # the release checks, apart from today's CHANGELOG
    data = json.loads((ROOT / "dataset" / "atlas.json").read_text(encoding="utf-8"))["version"]
    changelog.write_text(f"## [{script.project().version}]\n### Data {data}\n", encoding="utf-8")
    command = [sys.executable, str(ROOT / "scripts" / "release.py"), "--dry-run"]
    command += ["--changelog", str(changelog)] + (["--no-isolation"] if offline else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "checked: SHA256SUMS verifies" in done.stdout
    assert "  atlas/_data/dataset/atlas.json\n" in done.stdout
    assert "  atlas/_data/schema/shapes.ttl\n" in done.stdout
    assert f"execution-atlas-{data}.shapes.ttl" in done.stdout
