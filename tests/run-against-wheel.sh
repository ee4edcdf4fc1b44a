#!/usr/bin/env bash
# Build the wheel, install it with its test extras into a fresh virtual environment, and run the
# whole test suite (and the doctests of the installed modules) against the installed package,
# so that a file missing from the wheel fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${ATLAS_TEST_VENV:-$root/.venv-test}
python=${PYTHON:-python3}

# System tools some tests drive: Debian's Chromium (browser tests), Graphviz (the site's layout,
# DOT output), jq (the dataset README's example), zsh and fish (the completion scripts) and
# Node.js with npm (Mermaid's own parser, installed by the tests into ~/.cache/atlas-tests). Installed when missing and possible (root
# with apt-get); otherwise those tests skip.
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  if ! command -v chromium >/dev/null || ! command -v dot >/dev/null || ! command -v jq >/dev/null \
    || ! command -v zsh >/dev/null || ! command -v fish >/dev/null
  then
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends chromium graphviz fonts-dejavu-core jq zsh fish \
      >/dev/null
  fi
  if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    # Debian's npm conflicts with some other builds of Node.js: then the Mermaid tests skip.
    { apt-get update -qq && apt-get install -y -qq --no-install-recommends nodejs npm; } \
      >/dev/null 2>&1 || echo "could not install Node.js and npm: the Mermaid tests will skip"
  fi
fi

"$python" -m venv --clear "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip build
rm -rf "$root/dist"
"$venv/bin/python" -m build --wheel --outdir "$root/dist" "$root" >/dev/null
wheel=$(ls "$root"/dist/execution_atlas-*.whl)
# The CPU build of PyTorch (the witness extra) is pinned: a bare "torch" would pull a CUDA build.
"$venv/bin/python" -m pip install -q "torch==2.13.0"
"$venv/bin/python" -m pip install -q "${wheel}[test,witness,site,serve,docs]"

cd "$root"
export ATLAS_TEST_WHEEL=1
# Coverage of the whole run, subprocesses included (the CLI, the server's workers, the witness
# runner): pyproject.toml's [tool.coverage] says what is measured and the threshold.
export COVERAGE_FILE="$root/.coverage-data/coverage"
rm -rf "$root/.coverage-data" && mkdir -p "$root/.coverage-data"
coverage=("$venv/bin/python" -m coverage)
# On every core (pytest-xdist): each worker is a subprocess, measured like the others.
"${coverage[@]}" run -m pytest -p no:cacheprovider -n "${ATLAS_TEST_WORKERS:-auto}" tests "$@"
"${coverage[@]}" run -m pytest -p no:cacheprovider -q --doctest-modules --pyargs atlas
"${coverage[@]}" combine -q
if [ $# -eq 0 ]; then  # the whole suite: below the threshold fails the run
  "${coverage[@]}" report
  "${coverage[@]}" json -q -o "$root/.coverage-data/coverage.json"
  "$venv/bin/python" tests/coverage_gate.py "$root/.coverage-data/coverage.json"
else                   # a selection of tests: the figures, without the threshold
  "${coverage[@]}" report --fail-under=0
fi
