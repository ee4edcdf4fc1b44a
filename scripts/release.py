#!/usr/bin/env python3
"""Make every file of a release into a new folder, checked: the procedure is in RELEASING.md.

The folder gets the wheel and the sdist of the package (built with ``python -m build``), the
dataset in every format with its JSON Schema and SHACL shapes (from :mod:`atlas.data.release`,
named with the data version), with ``--previous OLD.json`` the changes to the data since that
export (``CHANGES-data.md``, what ``atlas diff`` prints), ``SHA256SUMS`` and a DCAT description
of every file (``execution-atlas-X.Y.Z.dcat.ttl``). The folder is written whole or not at all.

Before building, the release is checked: CHANGELOG.md has a section for the package version
(``## [X.Y.Z]``) and one for the data version (``### Data X.Y.Z``), and ``atlas diff`` finds no
id removed without a deprecation and no data version too low for the changes. A release with a
problem writes nothing; ``--dry-run`` builds and checks everything all the same, into a
temporary folder (or OUT), lists the wheel's contents, says what it found and removes the
temporary folder. Nothing is tagged or uploaded: the commands to do so are printed.

usage: python scripts/release.py [--dry-run] [--previous OLD.json] [--no-isolation] [OUT]

Exit status: 0 done, 1 a problem found (the release is refused), 2 a usage error, 3 it could
not run here (``build`` missing, the build failed, the folder cannot be written).
"""
# ruff: noqa: T201 - a command-line script: it prints

from __future__ import annotations

import argparse
import dataclasses
import io
import re
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from atlas.data.release import Artefact, Release
    from atlas.errors import Problem

ROOT = Path(__file__).resolve().parents[1]
CHANGES_NAME = "CHANGES-data.md"
WHEEL_TYPE = "https://packaging.python.org/en/latest/specifications/binary-distribution-format/"
SDIST_TYPE = "https://packaging.python.org/en/latest/specifications/source-distribution-format/"
#: What a wheel must hold: the package, its version and the data it reads.
WHEEL_NEEDS = ("atlas/__init__.py", "atlas/_data/dataset/atlas.json", "atlas/_data/schema/")
#: What an sdist must hold to build the wheel and test it.
SDIST_NEEDS = ("pyproject.toml", "src/atlas/__init__.py", "dataset/atlas.json", "tests/conftest.py")


@dataclasses.dataclass(frozen=True)
class Project:
    """What pyproject.toml and the package say: the distribution's name, version and URLs."""

    name: str
    version: str
    urls: dict[str, str]

    @property
    def package_tag(self) -> str:
        """The tag of the package's release, ``vX.Y.Z``."""
        return f"v{self.version}"

    def download_url(self, name: str) -> str:
        """Where the file ``name`` of the package's release is downloaded."""
        return f"{self.urls['Download'].rstrip('/')}/download/{self.package_tag}/{name}"


def project(root: Path = ROOT) -> Project:
    """The project of the checkout at ``root`` (its version from ``src/atlas/_version.py``)."""
    meta = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    text = (root / "src" / "atlas" / "_version.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE)
    if match is None:
        raise SystemExit(f"no __version__ in {root / 'src' / 'atlas' / '_version.py'}")
    return Project(meta["name"], match[1], dict(meta["urls"]))


# --- the checks before a release ------------------------------------------------------------


def changelog_problems(changelog: Path, package: str, data: str) -> list[Problem]:
    """The sections CHANGELOG.md lacks: ``## [package]`` and ``### Data data``."""
    from atlas.errors import Problem  # noqa: PLC0415

    text = changelog.read_text(encoding="utf-8")
    wanted = {
        f"## [{package}]": rf"^## \[{re.escape(package)}\]",
        f"### Data {data}": rf"^### Data {re.escape(data)}\b",
    }
    return [
        Problem(
            "violation",
            f"no section {heading!r}",
            file=str(changelog),
            hint="write the release's section (RELEASING.md, step 3)",
        )
        for heading, pattern in wanted.items()
        if not re.search(pattern, text, re.MULTILINE)
    ]


def changes(previous: Path, new: Path) -> tuple[str, list[Problem], str]:
    """What ``atlas diff PREVIOUS NEW`` says, as Markdown, the problems it found, the old version.

    Raises:
        DatasetError: either export is refused.
        CouldNotRunError: ``previous`` cannot be read.
    """
    from atlas.errors import CouldNotRunError  # noqa: PLC0415
    from atlas.publish import diff  # noqa: PLC0415

    if not previous.is_file():
        raise CouldNotRunError(f"cannot read the previous export {str(previous)!r}: no such file")
    result = diff.diff_files(previous, new)
    lines = [
        f"# Changes to the data: {result.old_version} to {result.new_version}",
        "",
        f"Made with `atlas diff`: {result.summary()}.",
        "",
        result.changelog().rstrip("\n"),
    ]
    if result.problems:
        lines += ["", "## Problems", "", *(f"- {p}" for p in result.problems)]
    return "\n".join(lines) + "\n", list(result.problems), result.old_version


# --- the wheel and the sdist -----------------------------------------------------------------


def build_distributions(root: Path, outdir: Path, *, isolation: bool = True) -> list[Path]:
    """Build the wheel and the sdist of ``root`` into ``outdir`` with ``python -m build``.

    Raises:
        CouldNotRunError: ``build`` is not installed, or the build failed (its last lines).
    """
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    command = [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(outdir)]
    command += [] if isolation else ["--no-isolation"]
    try:
        done = subprocess.run([*command, str(root)], capture_output=True, text=True, check=False)
    except OSError as error:
        raise CouldNotRunError(f"cannot run {sys.executable}: {error}") from None
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-8:])
        missing = "No module named build" in done.stderr
        hint = "install the dev extra: pip install -e '.[dev]'" if missing else tail
        raise CouldNotRunError(f"python -m build failed (exit {done.returncode}): {hint}")
    return sorted(outdir.iterdir())


def package_artefacts(built: list[Path], proj: Project) -> list[Artefact]:
    """The wheel and the sdist as release files, checked: one each, named with the version."""
    from atlas.data.release import Artefact  # noqa: PLC0415
    from atlas.errors import CouldNotRunError  # noqa: PLC0415

    stem = proj.name.replace("-", "_") + f"-{proj.version}"
    wheels = [p for p in built if p.name.startswith(f"{stem}-") and p.name.endswith(".whl")]
    sdists = [p for p in built if p.name == f"{stem}.tar.gz"]
    if len(wheels) != 1 or len(sdists) != 1:
        names = ", ".join(p.name for p in built) or "nothing"
        raise CouldNotRunError(f"the build made {names}; one {stem} wheel and sdist expected")
    about = f"The Python package {proj.name} {proj.version} (code MIT, dataset/ CC BY 4.0)"
    return [
        Artefact(
            path.name,
            path.read_bytes(),
            media,
            title,
            proj.download_url(path.name),
            standard,
            description=about,
        )
        for path, media, title, standard in (
            (wheels[0], "application/zip", "Python wheel", WHEEL_TYPE),
            (sdists[0], "application/gzip", "Python source distribution", SDIST_TYPE),
        )
    ]


def archive_problems(artefacts: list[Artefact], proj: Project) -> list[Problem]:
    """What the wheel and the sdist among ``artefacts`` lack (read, never installed)."""
    from atlas.errors import Problem  # noqa: PLC0415

    problems = []
    for artefact in artefacts:
        if artefact.name.endswith(".whl"):
            lacks = _wheel_lacks(artefact.data, proj.version)
        elif artefact.name.endswith(".tar.gz"):
            lacks = _sdist_lacks(artefact.data, f"{artefact.name.removesuffix('.tar.gz')}/")
        else:
            continue
        problems += [Problem("violation", f"lacks {what}", file=artefact.name) for what in lacks]
    return problems


def _wheel_lacks(data: bytes, version: str) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        metadata = [n for n in names if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata[0]).decode("utf-8") if len(metadata) == 1 else ""
    lacks = [need for need in WHEEL_NEEDS if not any(n.startswith(need) for n in names)]
    if f"\nVersion: {version}\n" not in text:
        lacks.append(f"a METADATA file with 'Version: {version}'")
    return lacks


def _sdist_lacks(data: bytes, top: str) -> list[str]:
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        names = set(archive.getnames())
    return [top + need for need in SDIST_NEEDS if top + need not in names]


def wheel_contents(folder: Path) -> list[str]:
    """The files of the wheel in ``folder``: a line with its name and count, then one each."""
    lines = []
    for wheel in sorted(folder.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
        lines += [f"{wheel.name}: {len(names)} files", *(f"  {name}" for name in names)]
    return lines


# --- the release -----------------------------------------------------------------------------


@dataclasses.dataclass
class Plan:
    """What a release is made of, and the problems found on the way."""

    proj: Project
    release: Release
    artefacts: list[Artefact]
    problems: list[Problem]


def plan(args: argparse.Namespace) -> Plan:
    """The dataset's files and the changes to the data, and what the checks before a release find.

    Raises:
        DatasetError: the dataset's export or the previous one is refused.
    """
    from atlas.data.release import Artefact, dataset_release  # noqa: PLC0415

    proj = project(args.root)
    release, artefacts = dataset_release(args.dataset, args.root / "schema")
    problems = changelog_problems(args.changelog, proj.version, release.version)
    if args.previous is not None:
        text, found, old = changes(args.previous, args.dataset / "atlas.json")
        problems += found
        release = dataclasses.replace(release, previous_version=f"{release.dataset}dataset/{old}")
        base = artefacts[0].download_url.rsplit("/", 1)[0]
        title = f"Changes to the data since {old}"
        data = text.encode("utf-8")
        md = Artefact(CHANGES_NAME, data, "text/markdown", title, f"{base}/{CHANGES_NAME}")
        artefacts.append(md)
    return Plan(proj, release, artefacts, problems)


def make(args: argparse.Namespace, out: Path) -> tuple[Plan, list[Problem], bool]:
    """Build the wheel and sdist and write the release into ``out``.

    Returns the plan, every problem found, and whether ``out`` was written: a release with a
    problem found before writing writes nothing; a dry run goes on and writes all the same.
    """
    from atlas.data.release import verify_release, write_release  # noqa: PLC0415

    made = plan(args)
    if made.problems and not args.dry_run:
        return made, made.problems, False
    with tempfile.TemporaryDirectory(prefix="atlas-build-") as scratch:
        built = build_distributions(args.root, Path(scratch), isolation=args.isolation)
        packages = package_artefacts(built, made.proj)
    problems = made.problems + archive_problems(packages, made.proj)
    if problems and not args.dry_run:
        return made, problems, False
    made.artefacts[:0] = packages
    write_release(out, made.release, made.artefacts)
    return made, problems + verify_release(out), True


def report(made: Plan, out: Path, problems: list[Problem], *, dry_run: bool) -> None:
    """Print the files, the wheel's contents (dry run), the problems, and what to do next."""
    for path in sorted(out.iterdir()):
        print(f"{'built' if dry_run else 'wrote'} {path} ({path.stat().st_size} bytes)")
    if dry_run:
        print("\n".join(wheel_contents(out)))
    for problem in problems:
        print(f"release: {problem}", file=sys.stderr)
    if problems:
        return
    print("checked: SHA256SUMS verifies; the DCAT description names every file, size and SHA-256")
    if not dry_run:
        data, package = f"data-{made.release.version}", made.proj.package_tag
        print(f"next: git tag -a {package} -m 'Release {made.proj.version}'")
        print(f"      git tag -a {data} -m 'Data {made.release.version}'  # new data only")
        print(f"      attach the files of {out} to the releases {package} and {data}")


def main(argv: list[str] | None = None) -> int:
    """Make the release (see the module's docstring); return the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.out is None and not args.dry_run:
        parser.error("OUT is required (a new or empty folder), except with --dry-run")
    from atlas.data.release import ReleaseFolderError  # noqa: PLC0415
    from atlas.errors import CouldNotRunError, DatasetError  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="atlas-release-") as scratch:
        out = args.out or Path(scratch) / "release"
        try:
            made, problems, written = make(args, out)
        except (DatasetError, ReleaseFolderError) as error:
            print(f"release: {error}", file=sys.stderr)
            return 1
        except CouldNotRunError as error:
            print(f"release: {error}", file=sys.stderr)
            return 3
        except OSError as error:
            print(f"release: cannot write {str(out)!r}: {error.strerror or error}", file=sys.stderr)
            return 3
        if not written:
            for problem in problems:
                print(f"release: {problem}", file=sys.stderr)
            print("release: refused, nothing written (--dry-run builds all the same)")
            return 1
        report(made, out, problems, dry_run=args.dry_run)
        if args.out is None:
            print("the files were built in a temporary folder, now removed (give OUT to keep them)")
    return 1 if problems else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python scripts/release.py",
        description="make every file of a release into a new folder, checked (RELEASING.md)",
    )
    parser.add_argument("out", nargs="?", type=Path, metavar="OUT", help="a new or empty folder")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="build and check everything (into a temporary folder unless OUT), list the wheel",
    )
    parser.add_argument(
        "--previous",
        type=Path,
        metavar="OLD.json",
        help="the JSON export of the last release: its diff goes into " + CHANGES_NAME,
    )
    parser.add_argument(
        "--no-isolation",
        dest="isolation",
        action="store_false",
        help="build with the installed hatchling (offline) instead of a fresh environment",
    )
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--dataset", type=Path, default=ROOT / "dataset", help=argparse.SUPPRESS)
    parser.add_argument(
        "--changelog", type=Path, default=ROOT / "CHANGELOG.md", help=argparse.SUPPRESS
    )
    return parser


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))  # this checkout's package, whatever is installed
    raise SystemExit(main())
