"""Mermaid's own parser for the tests: installed once, pinned, outside the repository.

``npm install`` puts mermaid and jsdom (Mermaid needs a DOM, even to parse) into
``$XDG_CACHE_HOME/atlas-tests/`` (``~/.cache/atlas-tests/`` by default), once, under a lock
(pytest-xdist workers), after which no network is needed. A test that needs the parser is skipped,
with the reason, where Node.js or npm is missing or the install fails.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

#: Mermaid's parser, pinned: mermaid 12 needs Node.js 22, jsdom 27 Node.js 20.19.
PACKAGES = {"mermaid": "11.17.2", "jsdom": "26.1.0"}

# Reads each file with Mermaid's own parser and prints, as JSON, its type, nodes and edges, the
# text decoded as Mermaid's render decodes it (mermaidAPI's decodeEntities), then as HTML.
SCRIPT = """\
import { readFileSync } from "node:fs";
import { JSDOM } from "jsdom";
const dom = new JSDOM("<!DOCTYPE html><body></body>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import("mermaid");
mermaid.initialize({ startOnLoad: false });
const decode = (text) => {
  const element = dom.window.document.createElement("div");
  element.innerHTML = String(text ?? "")
    .replace(/\\uFB02\\u00B0\\u00B0/g, "&#")
    .replace(/\\uFB02\\u00B0/g, "&")
    .replace(/\\u00B6\\u00DF/g, ";");
  return element.textContent;
};
const found = {};
for (const file of process.argv.slice(2)) {
  try {
    const diagram = await mermaid.mermaidAPI.getDiagramFromText(readFileSync(file, "utf8"));
    const db = diagram.db;
    found[file] = {
      type: diagram.type,
      nodes: [...db.getVertices().values()].map((v) => [v.id, decode(v.text)]),
      edges: db.getEdges().map((e) => [e.start, e.end, decode(e.text)]),
    };
  } catch (error) {
    found[file] = { error: String(error?.message ?? error) };
  }
}
console.log(JSON.stringify(found));
"""


@contextlib.contextmanager
def _locked(lock: Path) -> Iterator[None]:
    with lock.open("w") as handle:  # one installer at a time (pytest-xdist workers)
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def parser_folder() -> Path:
    """A folder with Mermaid's parser installed (once, pinned), or skip saying why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(
            "Mermaid's parser needs Node.js (18 or later) and npm: apt-get install nodejs npm"
        )
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "atlas-tests"
    name = "-".join(f"{package}-{version}" for package, version in PACKAGES.items())
    folder = cache / name
    cache.mkdir(parents=True, exist_ok=True)
    with _locked(cache / f".{name}.lock"):
        if not (folder / "node_modules" / "mermaid" / "package.json").is_file():
            building = cache / f".{name}.building"
            shutil.rmtree(building, ignore_errors=True)
            building.mkdir()
            (building / "package.json").write_text('{"private": true}\n', encoding="utf-8")
            done = subprocess.run(
                [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact",
                 *(f"{p}@{v}" for p, v in PACKAGES.items())],
                cwd=building, capture_output=True, text=True, check=False, timeout=600,
            )  # fmt: skip
            if done.returncode != 0:
                pytest.skip(f"npm could not install Mermaid's parser: {done.stderr[-500:]}")
            shutil.rmtree(folder, ignore_errors=True)
            building.rename(folder)
        script = folder / "read.mjs"
        if not script.is_file() or script.read_text(encoding="utf-8") != SCRIPT:
            script.write_text(SCRIPT, encoding="utf-8")
    return folder


def read(folder: Path, sources: dict[str, str], work: Path) -> dict[str, dict[str, object]]:
    """Each Mermaid text of ``sources`` as Mermaid's parser reads it, by name, in one node run.

    Each answer holds the diagram's ``type``, its ``nodes`` ([id, text]) and ``edges`` ([from,
    to, text]), the texts as Mermaid shows them; or the parser's ``error``.
    """
    for name, text in sources.items():
        (work / f"{name}.mmd").write_text(text, encoding="utf-8")
    done = subprocess.run(
        ["node", str(folder / "read.mjs"), *(str(work / f"{name}.mmd") for name in sources)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    return {Path(file).stem: answer for file, answer in found.items()}
