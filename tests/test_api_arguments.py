"""Wrong arguments to the public API: a precise AtlasError that is also the builtin Python expects.

Every public function is called with a matrix of wrong values. A wrong type must raise an
``AtlasError`` that is a ``TypeError``; a value of the right type that is wrong an ``AtlasError``
that is a ``ValueError`` (or a ``LookupError`` for an unknown id). Nothing else may escape (no
``AttributeError``, no ``UnicodeEncodeError``), and the one-line message names the parameter,
quotes the value and stays short however long the value was.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import atlas
from atlas.errors import ArgumentTypeError, ArgumentValueError, AtlasError
from atlas.query import store

LONG = "x" * 100_000
WRONG: dict[str, object] = {
    "None": None,
    "int": 3,
    "nan": math.nan,
    "bytes": b"pytorch",
    "list": ["pytorch"],
    "dict": {"pytorch": object()},
    "object": object(),
    "empty": "",
    "surrogate": "\udcff",  # what Python reads from the byte 0xff in sys.argv
    "long": LONG,
    "unknown": "no-such-id",
    "control": "a\x00\x1b[31mb",
}
NOT_TEXT = {"None", "int", "nan", "bytes", "list", "dict", "object"}
QUERY = "SELECT ?x WHERE { ?x ?p ?o } LIMIT 1"


@dataclass(frozen=True)
class Parameter:
    """One parameter of a public function, and what its wrong values must give."""

    call: Callable[[Any], object]
    names: tuple[str, ...]  # one of these must be in the message: the parameter, or what it is
    lookup: bool = False  # an unknown text is an unknown id (LookupError), not a ValueError
    takes_text: bool = True  # False: a str is of the wrong type (TypeError)
    text_ok: bool = False  # any str of valid Unicode is a right value
    right: frozenset[str] = field(default_factory=frozenset)  # right values: not called
    may_return: frozenset[str] = field(default_factory=frozenset)  # may return, or raise any


def _set(*keys: str) -> frozenset[str]:
    return frozenset(keys)


PATH_TEXT = _set("surrogate", "unknown")  # names no file: check() reports it, does not raise
PARAMETERS: dict[str, Parameter] = {
    "get": Parameter(atlas.get, ("name", "atlas"), lookup=True),
    "stage": Parameter(atlas.stage, ("stage",), lookup=True),
    "step": Parameter(atlas.step, ("step",), lookup=True),
    "technology": Parameter(atlas.technology, ("technology",), lookup=True),
    "citation": Parameter(atlas.citation, ("citation",), lookup=True),
    "source": Parameter(atlas.source, ("source", "url_or_id"), lookup=True),
    "stages": Parameter(atlas.stages, ("atlas",), lookup=True, right=_set("None")),
    "steps": Parameter(atlas.steps, ("atlas",), lookup=True, right=_set("None")),
    "path(value 1)": Parameter(lambda v: atlas.path(v, "gpu"), ("value 1", "mode")),
    "path(value 2)": Parameter(lambda v: atlas.path("compile", v), ("value 2", "device")),
    "path(device=)": Parameter(lambda v: atlas.path("compile", device=v), ("device",)),
    "path(atlas=)": Parameter(
        lambda v: atlas.path("compile", "gpu", atlas=v),
        ("atlas",),
        lookup=True,
        right=_set("None"),  # the atlas the words name
    ),
    "path(graph_breaks=)": Parameter(
        lambda v: atlas.path("compile", "gpu", graph_breaks=v), ("graph_breaks",), takes_text=False
    ),
    "path(branches=)": Parameter(
        lambda v: atlas.path("compile", "gpu", branches=v),
        ("branches", "branch"),
        takes_text=False,
        may_return=_set("list"),  # a list of branch names: 'pytorch' is no branch, refused
    ),
    "values": Parameter(atlas.values, ("atlas",), lookup=True, right=_set("None")),
    "render(path)": Parameter(atlas.render, ("path",), takes_text=False),
    "render(format)": Parameter(lambda v: atlas.render(atlas.path("eager", "cpu"), v), ("format",)),
    "render(brief=)": Parameter(
        lambda v: atlas.render(atlas.path("eager", "cpu"), brief=v), ("brief",), takes_text=False
    ),
    "sparql(query)": Parameter(atlas.sparql, ("query", "SPARQL")),
    "sparql(bindings)": Parameter(
        lambda v: atlas.sparql(QUERY, v),
        ("bindings",),
        takes_text=False,
        right=_set("None"),
    ),
    "sparql(bindings value)": Parameter(
        lambda v: atlas.sparql(QUERY, {"x": v}),
        ("bindings['x']",),
        text_ok=True,
        right=_set("int", "nan"),  # typed literals
    ),
    "run(name)": Parameter(store.run, ("name", "query"), lookup=True),
    "run(bindings)": Parameter(
        lambda v: store.run("path", v),
        ("bindings",),
        takes_text=False,
        may_return=_set("None"),  # no bindings: the query says which parameter it needs
    ),
    "run(bindings value)": Parameter(
        lambda v: store.run("path", {"atlas": v}),
        ("bindings['atlas']", "'atlas'"),
        may_return=_set("empty", "unknown", "long"),  # an IRI that names no atlas: no rows
    ),
    "named_query": Parameter(store.named_query, ("name", "query"), lookup=True),
    "execute": Parameter(store.execute, ("query", "SPARQL")),
    "term": Parameter(store.term, ("value",), text_ok=True, right=_set("int", "nan")),
    "parse_binding": Parameter(store.parse_binding, ("binding",)),
    "check(dataset=)": Parameter(
        lambda v: atlas.check(dataset=v),
        ("dataset",),
        right=_set("None"),
        may_return=PATH_TEXT,
    ),
    "check(sources=)": Parameter(
        lambda v: atlas.check(sources=v, dataset=Path("no-such-folder")),
        ("sources", "dataset"),
        right=_set("None"),
        may_return=PATH_TEXT,
    ),
    "check(export_path=)": Parameter(
        lambda v: atlas.check(export_path=v, dataset=Path("no-such-folder")),
        ("export_path", "dataset"),
        right=_set("None"),
        may_return=PATH_TEXT,
    ),
    "check(max_age_days=)": Parameter(
        lambda v: atlas.check(max_age_days=v),
        ("max_age_days",),
        takes_text=False,
        right=_set("int"),
    ),
    "check(online=)": Parameter(
        lambda v: atlas.check(online=v),
        ("online",),
        takes_text=False,
    ),
    "check(today=)": Parameter(
        lambda v: atlas.check(today=v),
        ("today",),
        takes_text=False,
        right=_set("None"),
    ),
    "check(files=)": Parameter(
        lambda v: atlas.check(files=v),
        ("files",),
        takes_text=False,
        right=_set("None"),
        may_return=_set("list", "dict"),  # file names that name no file: reported
    ),
    "check(fetch_policy=)": Parameter(
        lambda v: atlas.check(fetch_policy=v, dataset=Path("no-such-folder")),
        ("fetch_policy",),
        takes_text=False,
        right=_set("None"),
    ),
    "graph": Parameter(atlas.graph, ("files",), takes_text=False, right=_set("None")),
    # (PyTorch never runs: see _no_pytorch)
    "witness(mode)": Parameter(lambda v: atlas.witness(v, "cpu"), ("mode",)),
    "witness(device)": Parameter(lambda v: atlas.witness("eager", v), ("device",)),
    "witness(raw_output=)": Parameter(
        lambda v: atlas.witness("eager", "cpu", raw_output=v),
        ("raw_output",),
        right=_set("None"),
        may_return=_set("surrogate", "unknown"),  # names a file (not written here)
    ),
    "witness(model=)": Parameter(
        lambda v: atlas.witness("eager", "cpu", model=v),
        ("model",),
        right=_set("None"),
        text_ok=True,  # any text reaches the run, which checks it (stubbed here)
    ),
    "witness(inputs=)": Parameter(
        lambda v: atlas.witness("eager", "cpu", inputs=v),
        ("inputs",),
        right=_set("None"),
        text_ok=True,  # any text reaches the run, which checks it (stubbed here)
    ),
    "observe(mode=)": Parameter(lambda v: atlas.observe(len, (), mode=v), ("mode",)),
    "observe(device=)": Parameter(
        lambda v: atlas.observe(len, (), device=v), ("device",), right=_set("None")
    ),
}
CASES = [
    pytest.param(name, key, id=f"{name}-{key}")
    for name, parameter in PARAMETERS.items()
    for key in WRONG
    if key not in parameter.right and not (parameter.text_ok and key in {"empty", "unknown"})
]


def _expected(parameter: Parameter, key: str) -> type[Exception]:
    if key in NOT_TEXT or not parameter.takes_text:
        return TypeError
    if key == "surrogate" or not parameter.lookup:
        return ValueError
    return LookupError


@pytest.fixture(autouse=True)
def _no_pytorch(monkeypatch: pytest.MonkeyPatch) -> None:
    """The witness's arguments are checked, but no model runs: its run gives a stand-in."""
    from atlas._witness import observe, run  # noqa: PLC0415

    monkeypatch.setattr(run, "run_collector", lambda *_, **__: None)
    monkeypatch.setattr(observe, "build_record", lambda _: "a record")


@pytest.mark.parametrize(("name", "key"), CASES)
def test_a_wrong_argument_raises_a_precise_atlas_error(name: str, key: str) -> None:
    parameter = PARAMETERS[name]
    if key in parameter.may_return or (parameter.text_ok and key != "surrogate"):
        try:
            parameter.call(WRONG[key])
        except AtlasError as error:  # any precise error will do; nothing else may escape
            outcome: object = error
        else:
            outcome = None
        assert outcome is None or isinstance(outcome, TypeError | ValueError | LookupError)
        return
    with pytest.raises(AtlasError) as caught:
        parameter.call(WRONG[key])
    raised = caught.value
    assert isinstance(raised, _expected(parameter, key)), (type(raised).__mro__, str(raised))
    message = str(raised)
    assert any(word in message for word in parameter.names), message
    assert len(message) < 1000, "a long value is cut in the message"
    assert "\n" not in message
    message.encode("utf-8")  # printable: a surrogate is quoted as an escape


def test_every_public_function_is_in_the_matrix() -> None:
    functions = {
        name
        for name in atlas.__all__
        if callable(getattr(atlas, name)) and not isinstance(getattr(atlas, name), type)
    }
    covered = {name.split("(")[0] for name in PARAMETERS} | {"atlases", "load"}
    assert functions <= covered, functions - covered


def test_functions_without_parameters_answer() -> None:
    assert atlas.atlases() == atlas.load().atlases
    with pytest.raises(TypeError):  # a wrong number of arguments stays Python's own TypeError
        atlas.atlases(None)  # type: ignore[call-arg]


def test_wrong_type_errors_name_the_parameter_the_type_and_the_value() -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        atlas.stage(3)  # type: ignore[arg-type]
    assert str(caught.value) == "stage_id must be a str (a stage id, e.g. 'cpu'), not int: 3"
    assert (caught.value.parameter, caught.value.value) == ("stage_id", 3)
    assert isinstance(caught.value, TypeError)
    with pytest.raises(ArgumentTypeError, match=r"decode bytes first\), not bytes: b'cpu'"):
        atlas.stage(b"cpu")  # type: ignore[arg-type]


def test_text_that_is_not_unicode_names_the_byte() -> None:
    with pytest.raises(ArgumentValueError) as caught:
        atlas.path("compile", "gpu\udcff")
    message = str(caught.value)
    assert message.startswith("value 2 'gpu\\udcff' is not valid text: at position 3 it holds")
    assert "the byte 0xff, which is not UTF-8" in message
    with pytest.raises(ArgumentValueError, match="a lone surrogate, which no UTF-8 text holds"):
        atlas.sparql('SELECT * WHERE { ?s ?p "\ud800" }')


def test_a_long_value_is_cut_in_the_message() -> None:
    with pytest.raises(LookupError) as caught:
        atlas.stage(LONG)
    assert str(caught.value).startswith("unknown stage id 'xxx")
    assert str(caught.value).endswith("xxx' (100000 characters)")


def test_a_remembered_path_is_still_found_after_wrong_calls() -> None:
    first = atlas.path("compile", "gpu")
    with pytest.raises(ArgumentTypeError):
        atlas.path(["compile"], "gpu")  # type: ignore[arg-type]  # unhashable: not remembered
    assert atlas.path("compile", "gpu") is first


def test_bindings_check_their_variable_names() -> None:
    with pytest.raises(ArgumentValueError, match="'a b' is not a SPARQL variable name"):
        store.execute(QUERY, {"a b": 1})
    with pytest.raises(ArgumentValueError, match="max_rows -1 is negative"):
        store.execute(QUERY, max_rows=-1)
    with pytest.raises(ArgumentTypeError, match=r"target must be a pyoxigraph\.Store"):
        store.execute(QUERY, target="store")  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="engine must be an Engine"):
        store.run("written-in", engine="remote")  # type: ignore[arg-type]


def test_checked_functions_keep_their_name_and_signature() -> None:
    import inspect  # noqa: PLC0415

    from atlas.checks import verify  # noqa: PLC0415

    assert atlas.check.__wrapped__ is verify.check  # type: ignore[attr-defined]
    assert inspect.signature(atlas.check) == inspect.signature(verify.check)
    assert atlas.check.__doc__ == verify.check.__doc__
