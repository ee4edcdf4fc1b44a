"""Fuzzing the command line in-process: over 10,000 mutated argument vectors through ``main``.

Valid command lines of every command are mutated (tokens replaced, inserted, deleted, swapped,
characters spliced in: sub-commands, options, values, random text with lone surrogates and control
characters) and run through :func:`atlas.cli.main` with strict UTF-8 output streams, as a pipe
has. Only an exit status or ``SystemExit`` (argparse: help, version, usage errors) may come out,
never another exception, and nothing may be written outside the temporary working folder.

What is left out, and why:

* ``atlas serve``, ``atlas site serve`` and ``atlas publish`` are parsed and run to the API call,
  which is replaced: they would serve forever or reach a store over the network.
  ``site serve`` still binds its port (then returns at once instead of serving).
* ``atlas witness`` runs with its ``witness()`` replaced by a recorded run (PyTorch stays out);
  ``--record`` and ``--from-raw`` read real files.
* ``atlas site build`` calls a stand-in for ``site.build`` (a real build takes a quarter of a
  second and is tested in ``test_site.py``); ``atlas export`` builds the export once (memoised).
* Not run at all, after parsing: ``export`` without ``--output`` (it writes the shipped
  ``dataset/atlas.json``), an ``--output`` outside the working folder (``..``, ``/``),
  ``check`` without ``--dataset`` (the shipped data: its own tests) and ``check --online`` (the
  network). They are counted, and stay few.

The writers the commands use refuse, by a guard, any file outside the working folder. Called
with ``argv``, ``atlas sparql`` runs in this process without its sandbox: the seeds' queries read
the in-memory graph and have one triple pattern each, so no mutation makes one costly (a join
of two patterns without its LIMIT would be millions of rows). The same lines run on
every run (derandomised); the whole test takes about 80 s on two busy cores (45 s of CPU).
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import shutil
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from atlas import cli
from atlas.data import _resources

TESTS = Path(__file__).resolve().parent
# Run through main: at least 10,000 (a few lines are only parsed, see above). More for a longer
# local hunt: ATLAS_FUZZ_EXAMPLES=100000 (and ATLAS_FUZZ_RANDOM=1 for new lines on each run).
EXAMPLES = int(os.environ.get("ATLAS_FUZZ_EXAMPLES", "10400"))
Q = "SELECT ?s ?l WHERE { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?l } LIMIT 3"
SEEDS: tuple[tuple[str, ...], ...] = (
    ("path", "compile", "gpu"),
    ("path", "eager", "cpu", "--json"),
    ("path", "torch.compile", "NVIDIA GPU", "--atlas", "pytorch"),
    ("path", "--atlas", "llamacpp", "cpu"),
    ("stages",),
    ("stages", "--atlas", "pytorch", "--json"),
    ("steps", "--atlas", "llamacpp"),
    ("stage", "torchdynamo"),
    ("stage", "cpu", "--json"),
    ("sparql", "--list"),
    ("sparql", Q),
    ("sparql", Q, "--format", "csv"),
    ("sparql", "ASK { ?s ?p ?o }", "--json"),
    ("sparql", "query.rq", "--format", "tsv"),
    ("sparql", "bad.rq"),
    (
        "sparql",
        "SELECT ?l WHERE { ?s ?p ?l } LIMIT 2",
        "--bind",
        "s=<https://w3id.org/execution-atlas/stage/cpu>",
    ),
    (
        "sparql",
        "--name",
        "path",
        "--bind",
        "atlas=pytorch",
        "--bind",
        "mode=eager",
        "--bind",
        "device=cpu",
    ),
    ("sparql", "--name", "written-in", "--bind", "language=c", "--format", "json"),
    ("sparql", "--name", "evidence", "--bind", "step=torchdynamo"),
    ("export", "--output", "out.json"),
    ("export", "-o", "-"),
    ("check", "--dataset", "mini", "--json"),
    ("check", "--dataset", "nowhere", "--today", "2026-01-01", "--max-age", "30"),
    ("check", "--dataset", "mini", "--sources", "mini/sources", "--export", "bad.json"),
    ("diff", "old.json", "new.json"),
    ("diff", "old.json", "bad.json", "--json"),
    ("site", "build", "siteout", "--export", "old.json"),
    ("site", "serve", "--port", "0", "--dir", "site"),
    ("serve", "--port", "0", "--workers", "1", "--timeout", "2", "--cors-origin", "https://x.org"),
    ("publish", "--store", "http://127.0.0.1:9/", "--graph", "https://example.org/g"),
    ("witness", "--record", "record.json"),
    ("witness", "--from-raw", "raw.json", "--output", "w.json", "--compare"),
    ("witness", "--mode", "eager", "--device", "cpu", "--raw", "raw-out.json"),
    ("--version",),
    ("stages", "--help"),
)
WORDS = sorted(
    {
        *(token for seed in SEEDS for token in seed if len(token) < 40),
        *("-", "--", "-h", "-o", "--output", "--format", "--name", "--bind", "--atlas", "--dir"),
        *("--port", "--timeout", "--max-age", "--today", "--online", "--list", "--export"),
        *("0", "-1", "1e309", "nan", "inf", "70000", "2024-02-30", "xml", "turtle", "ntriples"),
        *("mini/toy.ttl", "mini/sources", "/", "..", "../..", ".", "/dev/null", "=", "a=<>", "?x"),
    }
)
ODD = (
    *("", "\udcff", "\udc80", "\ud800", "\x00", "\x1b[31m", "\n", "\r", "\t", " ", "\u2028"),
    *("\x7f", "\x85", "é", "%s", "{}", "x" * 5000, "\udcff" * 300),
)
CHARACTERS = st.one_of(
    st.characters(exclude_categories=()),  # every code point, surrogates included
    st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),  # bytes that were not UTF-8
    st.characters(max_codepoint=0x1F),  # control characters
)
TOKENS = st.one_of(st.sampled_from(WORDS), st.sampled_from(ODD), st.text(CHARACTERS, max_size=12))


def _values(argv: list[str]) -> list[int]:
    """Where the values are: not the command, a sub-command or an option."""
    first = 2 if argv[:1] == ["site"] else 1
    return [i for i in range(first, len(argv)) if not argv[i].startswith("-")]


def _splice(draw: st.DrawFn, token: str) -> str:
    """A few characters spliced into a token: a value, an option, a query."""
    at = draw(st.integers(0, len(token)))
    return token[:at] + draw(st.text(CHARACTERS, min_size=1, max_size=3)) + token[at:]


@st.composite
def argvs(draw: st.DrawFn) -> list[str]:
    """A valid command line, mutated a few times.

    Three lines in five keep their shape (only values change, so that most reach their command);
    the others change anywhere: tokens replaced, inserted, deleted, swapped or spliced into.
    """
    argv = list(draw(st.sampled_from(SEEDS)))
    values = _values(argv)  # in a line that keeps its shape, values stay where they are
    shaped = values and draw(st.sampled_from((True, True, True, False, False)))
    for _ in range(draw(st.sampled_from((1, 1, 1, 2, 2, 3)))):
        if shaped:
            where = draw(st.sampled_from(values))
            splice = draw(st.booleans())
            argv[where] = _splice(draw, argv[where]) if splice else draw(TOKENS)
            continue
        operation = draw(st.sampled_from(("splice", "replace", "insert", "delete", "swap")))
        where = draw(st.sampled_from(range(len(argv)))) if argv else 0
        if operation == "insert" or not argv:
            argv.insert(where, draw(TOKENS))
        elif operation == "replace":
            argv[where] = draw(TOKENS)
        elif operation == "delete":
            del argv[where]
        elif operation == "swap":
            other = draw(st.sampled_from(range(len(argv))))
            argv[where], argv[other] = argv[other], argv[where]
        else:
            argv[where] = _splice(draw, argv[where])
    return argv


def _workdir(root: Path) -> Path:
    """The files the seeds name: queries, exports, a dataset, a built site, witness runs."""
    from atlas._witness.observe import build_record  # noqa: PLC0415
    from atlas.models import _witness as records  # noqa: PLC0415
    from atlas.models._raw import RawRun  # noqa: PLC0415

    work = root / "work"
    work.mkdir()
    shutil.copytree(TESTS / "fixtures" / "mini", work / "mini")
    shutil.copy(TESTS / "fixtures" / "mini" / "atlas.json", work / "old.json")
    shutil.copy(TESTS / "fixtures" / "mini" / "atlas.json", work / "new.json")
    raw = (TESTS / "fixtures" / "witness" / "raw-cpu.json").read_text(encoding="utf-8")
    (work / "raw.json").write_text(raw, encoding="utf-8")
    record = build_record(RawRun.model_validate_json(raw))
    (work / "record.json").write_text(records.dump_json(record), encoding="utf-8")
    (work / "query.rq").write_text(Q + "\n", encoding="utf-8")
    (work / "bad.rq").write_bytes(b'ASK { ?s ?p "caf\xe9" }')
    (work / "bad.json").write_bytes(b"\xff\xfe{not json")
    (work / "site").mkdir()
    (work / "site" / "index.html").write_text("<p>a built site</p>\n", encoding="utf-8")
    return work


def _stub_long_running(monkeypatch: pytest.MonkeyPatch, work: Path) -> None:
    """Replace what would serve forever, reach the network, run PyTorch or write elsewhere."""
    import atlas._witness  # noqa: PLC0415
    from atlas._witness import files  # noqa: PLC0415
    from atlas._witness._workload import check_spec  # noqa: PLC0415
    from atlas._witness.observe import build_record  # noqa: PLC0415
    from atlas._witness.run import normalise_device, normalise_mode  # noqa: PLC0415
    from atlas.checks import build  # noqa: PLC0415
    from atlas.data import export  # noqa: PLC0415
    from atlas.models._raw import RawRun  # noqa: PLC0415
    from atlas.publish import graphstore as publish  # noqa: PLC0415
    from atlas.publish import serve, site  # noqa: PLC0415

    def inside(write: Any) -> Any:
        def guarded(path: Path, text: str) -> None:
            try:
                target = Path(path).resolve()
            except (OSError, ValueError):  # the real writer fails alike
                return write(path, text)  # type: ignore[no-any-return]
            assert target.is_relative_to(work), f"wrote outside the working folder: {target}"
            return write(path, text)  # type: ignore[no-any-return]

        return guarded

    monkeypatch.setattr(export, "write_text_atomic", inside(export.write_text_atomic))
    monkeypatch.setattr(files, "write_atomic", inside(files.write_atomic))
    monkeypatch.setattr(build, "build", functools.cache(build.build))
    monkeypatch.setattr(serve, "serve", lambda *_, **__: None)
    monkeypatch.setattr(
        publish,
        "publish",
        lambda _, graph, **__: SimpleNamespace(graph=graph, triples=0, seconds=0),
    )
    real_server = site.server

    def server(directory: Path, port: int = 0, **options: Any) -> Any:
        httpd = real_server(directory, port, **options)  # checks the folder, binds the port
        httpd.serve_forever = lambda *_, **__: None  # type: ignore[method-assign]
        return httpd

    monkeypatch.setattr(site, "server", server)
    monkeypatch.setattr(
        site,
        "build",
        lambda outdir, _=None, **__: SimpleNamespace(
            heaviest=("index.html", 2048), weights={"index.html": 2048}, outdir=outdir, seconds=0
        ),
    )
    raw = RawRun.model_validate_json((work / "raw.json").read_text(encoding="utf-8"))
    recorded = build_record(raw)

    def witness(
        mode: str = "all",
        device: str = "auto",
        *,
        raw_output: Path | None = None,
        model: str | None = None,
        inputs: str | None = None,
    ) -> Any:
        normalise_mode(mode)
        normalise_device(device)
        for spec, option in ((model, "--model"), (inputs, "--inputs")):
            if spec is not None:
                check_spec(spec, option)  # what the real run checks before it starts
        return recorded

    monkeypatch.setattr(atlas._witness, "witness", witness)


def _inside(path: str | Path, work: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(work)
    except (OSError, ValueError):  # no file can have this name: writing it fails
        return True


def _left_out(argv: list[str], work: Path) -> str | None:
    """Why a command line is only parsed, not run (see the module's docstring); None: run it."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            args = cli._parser().parse_args(argv)
    except SystemExit:
        return None  # main stops at the same place
    if args.command == "export" and args.output is None:
        return "export without --output"
    output = getattr(args, "output", None)  # export --output, witness --output
    if output not in (None, "-") and not _inside(output, work):
        return "--output outside the working folder"
    if args.command == "check" and (args.dataset is None or args.online):
        return "check of the shipped data, or online"
    return None


def _shipped_files() -> dict[str, tuple[int, int]]:
    """The files ``atlas export`` writes by default, and how many files lie beside them."""
    files = [Path(str(_resources.export_file())), Path(str(_resources.path_table_file()))]
    state = {f.name: (f.stat().st_mtime_ns, f.stat().st_size) for f in files}
    state["listing"] = (len(list(files[0].parent.iterdir())), 0)
    return state


@pytest.mark.slow
def test_mutated_command_lines_only_exit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = _workdir(tmp_path)
    monkeypatch.chdir(work)
    _stub_long_running(monkeypatch, work)
    before = _shipped_files()
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=not os.environ.get("ATLAS_FUZZ_RANDOM"),  # the same lines on every run
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(argvs())
    def run(argv: list[str]) -> None:
        reason = _left_out(argv, work)
        if reason is not None:
            outcomes[f"left out: {reason}"] += 1
            return
        out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
        written = io.BytesIO()
        err = io.TextIOWrapper(written, encoding="utf-8", errors="strict")
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = cli.main(argv)
        except SystemExit as stop:
            outcome = f"SystemExit {stop.code}"  # argparse's: 0 (help, version) or 2 (usage)
            assert stop.code in (0, 2), outcome  # noqa: PT017 - the exit is the outcome here
        else:
            assert isinstance(status, int), status
            outcome = f"status {status}"
        outcomes[outcome] += 1
        err.flush()
        assert b"Traceback" not in written.getvalue()

    run()
    ran = sum(n for what, n in outcomes.items() if not what.startswith("left out"))
    assert ran >= EXAMPLES * 0.96, outcomes  # 10,000 by default
    commands = sum(n for what, n in outcomes.items() if what.startswith("status"))
    assert commands >= ran // 4, outcomes  # not only usage errors: a quarter or more run
    assert _shipped_files() == before
    assert [p.name for p in tmp_path.iterdir()] == ["work"]
