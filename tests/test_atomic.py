"""Atomic outputs: ``atlas site build`` swaps a whole site in, ``atlas export`` never leaves a
temporary file behind, and what a SIGKILL leaves is removed by the next run.

The kill tests really kill ``python -m atlas`` processes; they are marked slow.
"""

from __future__ import annotations

import errno
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest

from atlas.data import export
from atlas.models import AtlasDocument
from fixtures_api import tiny_document

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals and flock")
Snapshot = dict[str, bytes]
OLD, NEW = tiny_document(), tiny_document(version="1.1.0", title="Toy, the next release")


@pytest.fixture(scope="module")
def build() -> ModuleType:
    """The site's build module; skips where the site cannot be built."""
    pytest.importorskip("jinja2", reason="the site needs the 'site' extra (Jinja2)")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz 'dot' is not installed (apt-get install graphviz)")
    from atlas.publish.site import _build  # noqa: PLC0415 - after the skips: the site needs jinja2

    return _build


def snapshot(folder: Path) -> Snapshot:
    """Every file under ``folder`` (hidden ones too), by relative path, with its bytes."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def siblings(folder: Path) -> list[str]:
    """What lies beside ``folder`` in its parent, other than ``folder``."""
    return sorted(p.name for p in folder.parent.iterdir() if p.name != folder.name)


def difference(found: Snapshot, expected: Snapshot) -> str:
    extra = sorted(found.keys() - expected.keys())
    missing = sorted(expected.keys() - found.keys())
    changed = sorted(k for k in found.keys() & expected.keys() if found[k] != expected[k])
    return f"extra {extra}, missing {missing}, changed {changed}"


@pytest.fixture(scope="module")
def references(build: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Snapshot]:
    """The whole site of OLD and of NEW, each built into a new folder."""
    found = {}
    for name, document in (("old", OLD), ("new", NEW)):
        folder = tmp_path_factory.mktemp(name) / "site"
        build.build(folder, document)
        found[name] = snapshot(folder)
    assert found["old"].keys() != found["new"].keys()  # a mix would show
    return found


@pytest.fixture
def old_site(references, tmp_path: Path) -> Path:
    """``tmp_path/parent/site``, holding the whole old site."""
    folder = tmp_path / "parent" / "site"
    for name, data in references["old"].items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    return folder


# --- site build: the folder holds one whole site ---------------------------------------------


def test_a_build_replaces_the_old_site_whole(build, references, old_site: Path) -> None:
    report = build.build(old_site, NEW)
    assert snapshot(old_site) == references["new"], difference(
        snapshot(old_site), references["new"]
    )
    assert siblings(old_site) == []
    assert report.outdir == old_site
    assert {p.relative_to(old_site).as_posix() for p in report.files} == set(references["new"])
    assert all(path.is_file() for path in report.files)


def test_a_link_to_the_site_stays_a_link(build, references, old_site: Path) -> None:
    link = old_site.with_name("link")
    link.symlink_to(old_site.name)
    build.build(link, NEW)
    assert link.is_symlink()
    assert snapshot(old_site) == references["new"]
    assert siblings(old_site) == ["link"]


@pytest.mark.parametrize("error", [RuntimeError("boom"), KeyboardInterrupt()])
@pytest.mark.parametrize("step", ["site_files", "_weights"])  # before and after files are written
def test_a_failed_build_leaves_the_old_site_and_nothing_else(
    build, references, old_site: Path, *, monkeypatch: pytest.MonkeyPatch, step, error
) -> None:
    def fail(*_args: object) -> None:
        raise error

    monkeypatch.setattr(build, step, fail)
    with pytest.raises(type(error)):
        build.build(old_site, NEW)
    assert snapshot(old_site) == references["old"], difference(
        snapshot(old_site), references["old"]
    )
    assert siblings(old_site) == []


def test_a_failed_first_build_leaves_nothing(
    build, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "_weights", lambda *_: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        build.build(tmp_path / "site", NEW)
    assert list(tmp_path.iterdir()) == []


def test_without_renameat2_the_old_site_is_renamed_aside_then_removed(
    build, references, old_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "_renameat2", lambda: None)
    build.build(old_site, NEW)
    assert snapshot(old_site) == references["new"]
    assert siblings(old_site) == []


def test_a_mount_point_is_refused_with_advice(
    build, references, old_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a bind mount looks like any folder until the swap: rename answers EBUSY
    def busy(*_args: object) -> bool:
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    monkeypatch.setattr(build, "_exchange", busy)
    with pytest.raises(build.SiteError, match="mount point; build into a folder inside it"):
        build.build(old_site, NEW)
    assert snapshot(old_site) == references["old"]
    assert siblings(old_site) == []
    monkeypatch.setattr(os.path, "ismount", lambda path: Path(path) == old_site)
    with pytest.raises(build.SiteError, match="mount point"):
        build.build(old_site, NEW)


def test_a_site_built_before_the_marker_existed_is_replaced(
    build, references, old_site: Path
) -> None:
    (old_site / build.MARKER).unlink()
    (old_site / "toy" / "gone.html").write_text("a page the data no longer has")
    build.build(old_site, NEW)
    assert snapshot(old_site) == references["new"]


@pytest.mark.parametrize("kind", ["home", "file", "current", "inside-current"])
def test_the_build_refuses_what_is_not_a_site(
    build, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "index.html").write_text("my own page")
    (home / "notes" / "todo.txt").write_text("keep me")
    outdir, message = home, "will not replace .*no .atlas-site file"
    if kind == "file":
        outdir, message = home / "index.html", "it is not a folder"
    elif kind == "current":
        (home / build.MARKER).write_text("")  # even a site: the shell would be left in a void
        monkeypatch.chdir(home)
        outdir, message = Path(), "it is .* the current folder"
    elif kind == "inside-current":
        (home / build.MARKER).write_text("")
        monkeypatch.chdir(home / "notes")
        outdir, message = Path(".."), "it is .* the current folder"
    before = snapshot(home)
    with pytest.raises(build.SiteError, match=message):
        build.build(outdir, NEW)
    assert snapshot(home) == before
    assert siblings(home) == []


@posix_only
def test_the_next_build_removes_what_killed_builds_left(build, references, old_site: Path) -> None:
    import fcntl  # noqa: PLC0415 - POSIX only

    stale = [".site.building-0123456789abcdef", ".site.old-fedcba9876543210"]
    live = ".site.building-00000000000000aa"  # a build still running holds its lock
    kept = [live, ".site.building-xyz", ".site.old-0123", ".other.building-0123456789abcdef"]
    for name in [*stale, *kept]:
        (old_site.parent / name).mkdir()
        (old_site.parent / name / "page.html").write_text("left behind")
    (old_site.parent / ".site.building-0000000000000bad").symlink_to(old_site.parent / live)
    kept.append(".site.building-0000000000000bad")
    holder = os.open(old_site.parent / live, os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        build.build(old_site, NEW)
    finally:
        os.close(holder)
    assert siblings(old_site) == sorted(kept)
    assert (old_site.parent / live / "page.html").is_file()
    assert snapshot(old_site) == references["new"]


def test_an_old_site_moved_aside_by_a_cut_swap_goes_back(
    build, references, old_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_site.rename(old_site.with_name(".site.old-0123456789abcdef"))  # killed between renames
    monkeypatch.setattr(build, "_weights", lambda *_: (_ for _ in ()).throw(RuntimeError("boom")))
    with pytest.raises(RuntimeError):
        build.build(old_site, NEW)
    assert snapshot(old_site) == references["old"]
    assert siblings(old_site) == []


# --- site build, killed ------------------------------------------------------------------------

KILLS = 20


@posix_only
@pytest.mark.slow
def test_a_killed_build_leaves_the_old_site_or_the_new_one_never_a_mix(
    build, tmp_path: Path
) -> None:
    """SIGKILL ``atlas site build`` at random moments; each time the folder holds one whole site.

    The shipped data makes a site of about 5 MB, so a kill often lands while it is written.
    """
    from atlas.query.paths import load  # noqa: PLC0415

    first = load()
    data = export.to_data(first)
    documents = {
        "first": first,
        "second": AtlasDocument.model_validate({**data, "title": "Next"}),
    }
    sources, expected = {}, {}
    for name, document in documents.items():
        sources[name] = export.write(document, tmp_path / f"{name}.json")
        build.build(tmp_path / name, document)
        expected[name] = snapshot(tmp_path / name)
    folder = tmp_path / "parent" / "site"
    folder.parent.mkdir()

    def run(name: str, delay: float | None) -> float:
        start = time.monotonic()
        command = [sys.executable, "-m", "atlas", "site", "build", str(folder)]
        with subprocess.Popen(
            [*command, "--export", str(sources[name])],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own group: the kill takes its dot processes too
        ) as process:
            try:
                process.wait(delay)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            else:
                assert process.returncode == 0, process.stderr.read() if process.stderr else ""
        return time.monotonic() - start

    whole = run("second", None)  # also shows the site is the same when built by another process
    assert snapshot(folder) == expected["second"]
    leftovers = 0
    # one moment in each of KILLS equal slices of 1.4 times a whole run, in a random order:
    # from the start of Python to past the end of the build
    rng = random.Random(20261202)  # noqa: S311 - reproducible moments, not secrets
    moments = [(i + rng.random()) / KILLS * 1.4 * whole for i in range(KILLS)]
    rng.shuffle(moments)
    for moment in moments:
        now = next(n for n, files in expected.items() if snapshot(folder) == files)
        run("first" if now == "second" else "second", moment)
        found = snapshot(folder)
        holds = [name for name, files in expected.items() if found == files]
        assert holds, "a mix: " + "; ".join(
            f"against the {name} site, {difference(found, files)}"
            for name, files in expected.items()
        )
        leftovers += bool(siblings(folder))
    assert leftovers, "no kill landed during a build: the test proves nothing"
    run("first", None)
    assert snapshot(folder) == expected["first"]
    assert siblings(folder) == []


@posix_only
@pytest.mark.slow
def test_a_terminated_build_removes_its_folder_and_ends_as_terminated(
    build, references, old_site: Path
) -> None:
    source = export.write(NEW, old_site.parent.parent / "new.json")
    command = [sys.executable, "-m", "atlas", "site", "build", str(old_site), "--export"]
    with subprocess.Popen([*command, str(source)], stderr=subprocess.PIPE) as process:
        deadline = time.monotonic() + 30
        while not siblings(old_site) and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        assert siblings(old_site), "no build folder was seen"
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGTERM, err
    assert siblings(old_site) == []
    assert snapshot(old_site) == references["old"]


# --- export: no temporary file left ------------------------------------------------------------

SLOW_WRITER = textwrap.dedent(
    """
    import os, signal, sys, time
    from pathlib import Path
    from atlas.data import export

    if sys.argv[2] == "SIGINT":  # as in a process started with SIGINT at its default action
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    # a signal mask is inherited through exec: start with these three deliverable, whatever
    # the test runner's thread had blocked
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM, signal.SIGHUP})

    def slow(fd):
        print("writing", flush=True)
        time.sleep(60)

    os.fsync = slow
    export.write_text_atomic(Path(sys.argv[1]), "new text\\n")
    """
)


def start_slow_write(path: Path, name: str = "") -> subprocess.Popen[str]:
    """A process that writes ``path`` and sleeps with the temporary file written, not renamed."""
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_WRITER, str(path), name],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "writing\n", process.communicate()[1]
    return process


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@posix_only
@pytest.mark.slow
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_during_the_write_leaves_no_temporary_file(tmp_path: Path, name: str) -> None:
    target = tmp_path / "atlas.json"
    target.write_text("old text\n")
    number = signal.Signals[name]
    with start_slow_write(target, name) as process:
        assert len(temporaries(tmp_path)) == 1
        process.send_signal(number)
        _, err = process.communicate(timeout=30)
    assert process.returncode == -number, err  # it still ends as the signal ends it
    assert temporaries(tmp_path) == []
    assert target.read_text() == "old text\n"


@posix_only
@pytest.mark.slow
def test_the_next_write_removes_what_a_killed_write_left(tmp_path: Path) -> None:
    target = tmp_path / "atlas.json"
    with start_slow_write(target) as process:
        process.kill()
        process.communicate(timeout=30)
    [left] = temporaries(tmp_path)
    old = time.time() - 60
    os.utime(tmp_path / left, (old, old))
    export.write_text_atomic(target, "text\n")
    assert temporaries(tmp_path) == []
    assert target.read_text() == "text\n"


@posix_only
def test_only_stale_unlocked_temporary_files_of_the_same_name_are_removed(tmp_path: Path) -> None:
    import fcntl  # noqa: PLC0415 - POSIX only

    def make(name: str, *, stale: bool = True) -> Path:
        path = tmp_path / name
        path.write_text("half a file")
        if stale:
            os.utime(path, (time.time() - 60,) * 2)
        return path

    make(".atlas.json.abcd_123.tmp")  # stale and unlocked: removed
    kept = [
        make(".atlas.json.young123.tmp", stale=False),  # may be a writer between two steps
        make(".atlas.json.locked12.tmp"),  # a live writer holds its lock
        make(".atlas.json.tmp"),
        make(".atlas.json.abcd12345.tmp"),
        make(".atlas.json.ABCD1234.tmp"),
        make(".other.json.abcd1234.tmp"),
        make("atlas.json.abcd1234.tmp"),
    ]
    (tmp_path / ".atlas.json.folder12.tmp").mkdir()
    (tmp_path / ".atlas.json.link1234.tmp").symlink_to(kept[-1])
    kept += [tmp_path / ".atlas.json.folder12.tmp", tmp_path / ".atlas.json.link1234.tmp"]
    holder = os.open(kept[1], os.O_RDONLY)
    try:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # from a worker thread: no signal handlers there, and the clean-up still runs
        writer = threading.Thread(
            target=export.write_text_atomic, args=(tmp_path / "atlas.json", "text\n")
        )
        writer.start()
        writer.join()
    finally:
        os.close(holder)
    assert sorted(tmp_path.iterdir()) == sorted([*kept, tmp_path / "atlas.json"])
    assert (tmp_path / "atlas.json").read_text() == "text\n"
