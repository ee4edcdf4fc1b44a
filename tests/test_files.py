"""Files named by data stay in their folder, are regular files and are bounded in size.

``ea:snapshot`` names inside ``--sources``, the ``*.ttl`` of a dataset folder, the files of
``atlas site serve``: symbolic links out, devices, FIFOs and oversized files are refused with a
message that names them, never read (nor waited on).
"""

from __future__ import annotations

import http.client
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas.cli import main
from atlas.data import _files
from atlas.data._files import UnsafeFileError, inside, read_bytes, regular_file
from checkkit import copy_mini


def test_inside_keeps_names_in_their_folder(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "sub").mkdir()
    assert inside(tmp_path, "a.txt") == (tmp_path / "a.txt").resolve()
    assert inside(tmp_path, "sub/../a.txt") == (tmp_path / "a.txt").resolve()
    for name, why in [
        ("../a.txt", "leads out of its folder"),
        ("sub/../../a.txt", "leads out of its folder"),
        ("/etc/passwd", "is an absolute path"),
        ("a\x00.txt", "holds a NUL"),
    ]:
        with pytest.raises(UnsafeFileError, match=why):
            inside(tmp_path, name)


def test_a_symbolic_link_out_is_refused_and_one_inside_is_followed(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("x")
    (tmp_path / "in.txt").symlink_to(tmp_path / "real.txt")
    (tmp_path / "out.txt").symlink_to("/etc/passwd")
    assert inside(tmp_path, "in.txt") == (tmp_path / "real.txt").resolve()
    with pytest.raises(UnsafeFileError, match=r"leads out of its folder .* \(to '/etc/passwd'\)"):
        inside(tmp_path, "out.txt")


def test_only_regular_files_of_bounded_size_are_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 101)
    for path, why in [
        (fifo, "not a regular file"),  # opened without blocking, then refused
        (Path("/dev/zero"), "not a regular file"),
        (tmp_path, "not a regular file"),
        (big, "101 bytes, over the limit of 100 bytes"),
    ]:
        with pytest.raises(UnsafeFileError, match=why):
            read_bytes(path, 100)
        with pytest.raises(UnsafeFileError, match=why):
            regular_file(path, 100)
    assert read_bytes(big, 101) == b"x" * 101
    with pytest.raises(FileNotFoundError):
        read_bytes(tmp_path / "missing", 100)


def _check(folder: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["check", "--dataset", str(folder), "--sources", str(folder / "sources")])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out + err


def _plant(path: Path, target: str) -> str:
    """Make ``path`` a FIFO or a symbolic link to ``target``; the refusal it should get."""
    if target == "fifo":
        os.mkfifo(path)
        return "is not a regular file"
    path.symlink_to(target)
    return "leads out of its folder"


# Each file a dataset names or holds, and how the line that refuses it begins.
PLANTED = [
    ("sources/toy-spec.txt", "citation/spec-targets: snapshot refused: "),
    ("extra.ttl", "{file}: violation: Turtle file refused: "),
    ("atlas.json", "{file}: violation: the JSON export is refused: "),
]


@pytest.mark.parametrize("target", ["/etc/passwd", "/dev/zero", "fifo"])
@pytest.mark.parametrize(("name", "start"), PLANTED)
def test_a_file_linked_out_of_its_folder_or_not_regular_is_a_violation(
    name: str, start: str, target: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_mini(tmp_path)
    planted = folder / name
    planted.unlink(missing_ok=True)
    expected = _plant(planted, target)
    status, out = _check(folder, capsys)
    assert status == 1
    start = start.format(file=planted)
    assert any(start in line and expected in line for line in out.splitlines()), out


@pytest.mark.parametrize(("limit", "size"), [("MAX_SNAPSHOT_BYTES", 10), ("MAX_TURTLE_BYTES", 100)])
def test_an_oversized_file_is_a_violation(
    limit: str,
    size: int,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = "_sourcecheck" if limit == "MAX_SNAPSHOT_BYTES" else "verify"
    monkeypatch.setattr(f"atlas.checks.{module}.{limit}", size)
    status, out = _check(copy_mini(tmp_path), capsys)
    assert status == 1
    assert f"over the limit of {size} bytes" in out


def test_serve_data_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    from atlas.query import store  # noqa: PLC0415

    fifo = tmp_path / "data.ttl"
    os.mkfifo(fifo)
    with pytest.raises(store.SparqlError, match=r"refused: .* is not a regular file"):
        store.load_store([fifo])
    with pytest.raises(store.SparqlError, match=r"refused: .* is not a regular file"):
        store.load_store([Path("/dev/zero")])
    with pytest.raises(store.SparqlError, match="cannot read"):
        store.load_store([tmp_path / "missing.ttl"])


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    from atlas.publish.site import _serve  # noqa: PLC0415

    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("<h1>atlas</h1>")
    (folder / "inside.txt").write_text("inside")
    (tmp_path / "secret.txt").write_text("secret")
    (folder / "leak.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "passwd").symlink_to("/etc/passwd")
    (folder / "alias.txt").symlink_to(folder / "inside.txt")
    os.mkfifo(folder / "fifo")
    server = _serve.server(folder, quiet=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], folder
    server.shutdown()
    server.server_close()


def _get(port: int, path: str) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body


def test_site_serve_keeps_to_its_folder(site: tuple[int, Path]) -> None:
    port, _ = site
    assert _get(port, "/inside.txt") == (200, b"inside")
    assert _get(port, "/alias.txt") == (200, b"inside")
    for path in ("/leak.txt", "/passwd", "/fifo", "/../secret.txt", "/%2e%2e/secret.txt"):
        status, body = _get(port, path)
        assert status == 404, path
        assert b"secret" not in body
        assert b"root:" not in body


def test_the_limits_are_generous_for_real_data() -> None:
    assert _files.MAX_SNAPSHOT_BYTES >= 16 * 1024 * 1024
    assert _files.MAX_TURTLE_BYTES >= 256 * 1024 * 1024


def test_loops_of_symbolic_links_are_refused_not_crashed_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(UnsafeFileError, match="cannot be resolved"):
        inside(tmp_path, "loop")
    folder = copy_mini(tmp_path)
    (folder / "sources" / "toy-spec.txt").unlink()
    (folder / "sources" / "toy-spec.txt").symlink_to(folder / "sources" / "toy-spec.txt")
    (folder / "extra.ttl").symlink_to(folder / "extra.ttl")
    status, out = _check(folder, capsys)
    assert status == 1
    assert "Turtle file refused: 'extra.ttl' cannot be resolved" in out


def test_site_serve_answers_404_to_a_nul_in_the_path(site: tuple[int, Path]) -> None:
    port, _ = site
    assert _get(port, "/%00")[0] == 404
    assert _get(port, "/inside.txt%00.html")[0] == 404
    assert _get(port, "/inside.txt") == (200, b"inside")


def test_site_serve_answers_loopback_names_only_and_lists_no_folder(
    site: tuple[int, Path],
) -> None:
    port, folder = site
    (folder / "sub").mkdir()
    (folder / "sub" / "page.txt").write_text("page")
    assert _get(port, "/sub/page.txt") == (200, b"page")
    assert _get(port, "/sub/")[0] == 404  # no listing
    for host, status in [("evil.example", 421), ("localhost:1", 200), ("[::1]", 200)]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connection.request("GET", "/inside.txt", headers={"Host": host})
        assert connection.getresponse().status == status, host
        connection.close()


def test_site_serve_closes_a_silent_connection(
    site: tuple[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket  # noqa: PLC0415

    from atlas.publish.site import _serve  # noqa: PLC0415

    assert _serve._ConfinedHandler.timeout == 10
    monkeypatch.setattr(_serve._ConfinedHandler, "timeout", 0.5)
    port, _ = site
    silent = socket.create_connection(("127.0.0.1", port), timeout=10)
    silent.sendall(b"GET /inside.txt HTTP/1.1\r\n")  # and nothing more
    assert silent.recv(100) == b""  # closed by the server, well before our 10 s
    silent.close()


def test_the_shipped_data_is_found_in_a_folder_and_in_a_zip_file(tmp_path: Path) -> None:
    """A package in a folder is read from it; one in a zip file through importlib.resources."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415
    import zipfile  # noqa: PLC0415

    import atlas  # noqa: PLC0415
    from atlas.data import _resources  # noqa: PLC0415

    package = Path(atlas.__file__).parent
    export = _resources.export_file().read_bytes()
    assert export == (_resources.dataset_dir() / "atlas.json").read_bytes()
    zipped = tmp_path / "atlas.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for file in package.rglob("*.py"):
            archive.write(file, f"atlas/{file.relative_to(package)}")
        archive.writestr("atlas/_data/dataset/atlas.json", export)
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); from atlas.data import _resources as r; "
        "assert '.zip' in r.__file__, r.__file__; "
        "sys.stdout.buffer.write(r.export_file().read_bytes())"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(zipped)], capture_output=True, check=False, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == export
