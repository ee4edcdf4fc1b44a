"""The README's tour is real output: run its Python examples as a doctest."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples_run() -> None:
    text = README.read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in text.split("```python\n")[1:]]
    parser = doctest.DocTestParser()
    test = parser.get_doctest("\n".join(blocks), {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 5
    if result.failed:
        pytest.fail(f"{result.failed} README example(s) fail; see the output above")


def test_readme_opens_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    fences = [b.split("```", 1)[0] for b in text.split("```bash\n")[1:3]]
    assert "pip install . && .venv/bin/atlas path compile gpu" in fences[0]
    assert fences[1].strip() == "bash tests/run-against-wheel.sh"
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash tests/run-against-wheel.sh" in ci
