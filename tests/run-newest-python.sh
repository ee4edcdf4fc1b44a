#!/usr/bin/env bash
# The newest Python beside the README's run: the wheel installed with its test extras but not the
# witness extra (PyTorch's CPU build lies on this disk for Python 3.11 only; from PyPI it is a CUDA
# build of several GB) into a fresh virtual environment, then the doctests of the installed
# modules and the tests not marked slow against it. Behaviour that changed between Pythons
# (pathlib's resolve() and loops of symbolic links in 3.13, importlib's Traversable in 3.12) fails
# here. Without a Python 3.13 (on PATH or under pyenv) it says so and exits 0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${ATLAS_TEST_NEWEST_VENV:-$root/.venv-newest}

newest=""
for candidate in python3.13 "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.13*/bin/python3.13; do
  if "$candidate" -c 'import sys; assert sys.version_info >= (3, 13)' >/dev/null 2>&1; then
    newest=$candidate
    break
  fi
done
if [ -z "$newest" ]; then
  echo "no Python 3.13 found: the run on the newest Python is skipped"
  exit 0
fi
echo "the newest Python: $("$newest" --version) ($newest)"

"$newest" -m venv --clear "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip build
dist=$(mktemp -d)
trap 'rm -rf "$dist"' EXIT
"$venv/bin/python" -m build --wheel --outdir "$dist" "$root" >/dev/null
"$venv/bin/python" -m pip install -q "$(ls "$dist"/execution_atlas-*.whl)[test,site,serve,docs]"

cd "$root"
export ATLAS_TEST_WHEEL=1
"$venv/bin/python" -m pytest -p no:cacheprovider -q --doctest-modules --pyargs atlas
"$venv/bin/python" -m pytest -p no:cacheprovider -q -n "${ATLAS_TEST_WORKERS:-auto}" -m "not slow" tests "$@"
