"""The package's structure stays true: layers import downwards only, and no import circles.

Every import counts, also one deferred into a function or made for type checking only. The layers,
lowest first, are those of ARCHITECTURE.md; a module may import its own layer and those below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: The layers, lowest first: a module belongs to the layer of the longest prefix that names it.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("atlas.errors", "atlas._version")),
    ("models", ("atlas.models",)),
    ("data", ("atlas.data",)),
    ("query", ("atlas.query",)),
    ("checks", ("atlas.checks",)),
    ("witness", ("atlas._witness",)),
    ("publish", ("atlas.publish",)),
    ("cli", ("atlas.cli",)),
    ("face", ("atlas",)),
)


def layer_of(module: str) -> int:
    """The rank of a module's layer (0 is the lowest)."""
    best, rank = -1, -1
    for number, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), number
    if rank < 0:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return rank


def modules(root: Path) -> dict[str, Path]:
    """Every module of the packages under ``root``, by dotted name."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of ``known`` that a module imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            # ``from package import module`` imports the module; ``from module import name``
            # the module (a package's face counts only when a name is taken from it)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                for alias in node.names
            ]
        else:
            continue
        found.update(_module_of(target, known) for target in targets)
    return found - {"", name}


def _module_of(target: str, known: dict[str, Path]) -> str:
    """The module that ``target`` names or is in ("" when none of ``known``)."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target


def upward(root: Path) -> list[str]:
    """Each import from a lower layer to a higher one, as ``a (layer) -> b (layer)``."""
    known = modules(root)
    wrong = []
    for name, path in known.items():
        for target in sorted(imports(name, path, known)):
            if layer_of(target) > layer_of(name):
                here, there = LAYERS[layer_of(name)][0], LAYERS[layer_of(target)][0]
                wrong.append(f"{name} ({here}) -> {target} ({there})")
    return wrong


def cycles(root: Path) -> list[list[str]]:
    """The circles of modules that import each other (Tarjan's strongly connected components)."""
    known = modules(root)
    graph = {name: sorted(imports(name, path, known)) for name, path in known.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = stack[stack.index(node) :]
            del stack[stack.index(node) :]
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_import_goes_down_or_stays_in_its_layer() -> None:
    assert upward(SRC) == []


def test_no_modules_import_each_other_in_a_circle() -> None:
    assert cycles(SRC) == []


def test_the_models_import_nothing_above_them() -> None:
    known = modules(SRC)
    models = {name for name in known if layer_of(name) == 1}
    assert models, "no module in the models layer"
    for name in models:
        assert {layer_of(t) for t in imports(name, known[name], known)} <= {0, 1}, name


def test_every_module_is_in_a_layer() -> None:
    for name in modules(SRC):
        assert 0 <= layer_of(name) < len(LAYERS)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (  # a deferred import still counts
            {
                "atlas/__init__.py": "",
                "atlas/models/__init__.py": "def f():\n    from atlas.query import x\n",
                "atlas/query/__init__.py": "",
                "atlas/query/x.py": "",
            },
            ["atlas.models (models) -> atlas.query.x (query)"],
        ),
        (  # a name imported from a module is an import of that module; relative imports resolve
            {
                "atlas/__init__.py": "",
                "atlas/data/__init__.py": "",
                "atlas/data/a.py": "from ..checks.b import rule\n",
                "atlas/checks/__init__.py": "",
                "atlas/checks/b.py": "import atlas.data.a\n",
            },
            ["atlas.data.a (data) -> atlas.checks.b (checks)"],
        ),
        (  # the face is the top: a lower module that imports it imports upwards
            {"atlas/__init__.py": "", "atlas/errors.py": "import atlas\n"},
            ["atlas.errors (foundation) -> atlas (face)"],
        ),
    ],
)
def test_the_check_finds_an_upward_import(tmp_path: Path, files, expected) -> None:
    assert upward(_tree(tmp_path, files)) == expected


def test_the_check_finds_a_circle(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "atlas/__init__.py": "",
            "atlas/data/__init__.py": "",
            "atlas/data/a.py": "from atlas.data import b\n",
            "atlas/data/b.py": "def f():\n    from atlas.data.c import g\n",
            "atlas/data/c.py": "from atlas.data.a import h\n",
            "atlas/data/d.py": "from atlas.data import a\n",
        },
    )
    assert cycles(root) == [["atlas.data.a", "atlas.data.b", "atlas.data.c"]]
    assert upward(root) == []
