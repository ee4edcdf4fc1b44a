"""Selections in plain words (issue 19): phrases, named values, the atlas they pick, the lookups.

The resolver's rules are tested on tiny hand-made vocabularies; the promises made to users
(``atlas path "eager on CPU"`` prints what ``atlas path eager cpu`` prints, the llama.cpp phrase,
``atlas stage dynamo``, the help) on the shipped data, as a user meets them.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import atlas
from atlas import cli
from atlas.cli import _parse
from atlas.cli import _selection as cli_selection
from atlas.data import _resources
from atlas.errors import (
    MissingValueError,
    SelectionError,
    UnknownIdError,
    UnknownValueError,
)
from atlas.query import _pathtable
from atlas.query import paths as query
from atlas.query._selection import Vocabulary, resolve, words


def _atlas(label: str, dimensions: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
    """An atlas of a vocabulary: dimension -> value id -> [label, aliases...]."""
    keys, values = [], []
    for dimension, found in dimensions.items():
        keys.append(
            {
                " ".join(name.split()).casefold(): f"{dimension}/{value}"
                for value, names in found.items()
                for name in (f"{dimension}/{value}", *names)
            }
        )
        values.append([[f"{dimension}/{value}", names[0]] for value, names in found.items()])
    return {"label": label, "names": list(dimensions), "dimensions": keys, "values": values}


TOY = _atlas(
    "Toy",
    {
        "colour": {"red": ["red", "warm", "x"], "blue": ["blue", "cold", "y"]},
        "size": {"big": ["big", "large", "y"], "small": ["small", "little", "x"]},
    },
)
CARS = _atlas(
    "Car Park",
    {
        "engine": {"petrol": ["petrol"], "electric": ["electric", "ev", "big"]},
        "speed": {"fast": ["fast"], "slow": ["slow", "red"]},
    },
)


def vocabulary(**atlases: dict[str, Any]) -> Vocabulary:
    folded = {key: name for name, a in atlases.items() for key in (name, a["label"].casefold())}
    ids = [*atlases, "empty"]
    return Vocabulary.from_data(
        {"ids": ids, "folded": {**folded, "empty": "empty"}, "atlases": atlases}
    )


WORDS = vocabulary(toy=TOY, cars=CARS)  # 'red big' fits both


def test_words_are_split_at_spaces_and_punctuation_and_folded() -> None:
    assert words("  Torch.Compile,on (an) NVIDIA;GPU ") == [
        "torch.compile",
        "on",
        "an",
        "nvidia",
        "gpu",
    ]


@pytest.mark.parametrize(
    ("values", "named", "chosen"),
    [
        (["red", "big"], {}, ("colour/red", "size/big")),  # one value per dimension
        (["big", "red"], {}, ("colour/red", "size/big")),  # any order in a phrase
        (["a big red one"], {}, None),  # 'one' is no value
        (["the big, red (warm) one"], {}, None),
        (["red and large, with the warm"], {}, ("colour/red", "size/big")),
        (["WARM", "Little"], {}, ("colour/red", "size/small")),
        (["x", "y"], {}, ("colour/red", "size/big")),  # one per dimension, in order: rule 1
        (["y", "x"], {}, ("colour/blue", "size/small")),
        (["colour=red", "size = big"], {}, ("colour/red", "size/big")),
        (["red"], {"size": "small"}, ("colour/red", "size/small")),
        ([], {"Colour": "cold", "SIZE": "little"}, ("colour/blue", "size/small")),
    ],
)
def test_a_selection_is_read_from_values_phrases_and_names(
    values: list[str], named: dict[str, str], chosen: tuple[str, ...] | None
) -> None:
    if chosen is None:
        with pytest.raises(SelectionError, match="unknown word 'one' for atlas 'toy'"):
            resolve(WORDS, values, named, "toy")
        return
    assert resolve(vocabulary(toy=TOY), values, named) == ("toy", chosen)
    assert resolve(WORDS, values, named, "Toy") == ("toy", chosen)


def test_the_atlas_is_the_one_the_words_name_or_whose_values_they_are() -> None:
    assert resolve(WORDS, ["petrol fast"]) == ("cars", ("engine/petrol", "speed/fast"))
    assert resolve(WORDS, ["car park: ev, slow"]) == ("cars", ("engine/electric", "speed/slow"))
    assert resolve(WORDS, ["toy", "red big"]) == ("toy", ("colour/red", "size/big"))
    assert resolve(WORDS, ["empty", "red"]) == ("empty", ())  # the index says it has no paths
    assert resolve(WORDS, [], {}, "EMPTY") == ("empty", ())


def test_words_that_fit_two_atlases_or_name_two_are_errors_naming_them() -> None:
    with pytest.raises(SelectionError) as caught:
        resolve(WORDS, ["big red"])  # toy: red and big; cars: electric and slow
    message = str(caught.value)
    assert message.startswith("'big red': it fits more than one atlas: ")
    assert "toy (colour=red, size=big)" in message
    assert "cars (engine=electric, speed=slow)" in message
    assert caught.value.choices == ("toy", "cars")
    with pytest.raises(SelectionError, match="it names more than one atlas: cars, toy"):
        resolve(WORDS, ["toy cars red big"])
    with pytest.raises(SelectionError, match="it names more than one atlas: cars, toy"):
        resolve(WORDS, ["cars fast petrol"], None, "toy")
    with pytest.raises(UnknownIdError, match="unknown atlas id 'nope'"):
        resolve(WORDS, ["red big"], None, "nope")


def test_words_that_read_two_ways_in_one_atlas_list_the_readings() -> None:
    with pytest.raises(SelectionError) as caught:
        resolve(WORDS, ["x y"], None, "toy")  # x: red or small; y: blue or big
    assert "it can be read in more than one way in atlas 'toy'" in str(caught.value)
    assert set(caught.value.choices) == {"colour=red, size=big", "colour=blue, size=small"}


def test_a_name_of_several_words_is_never_split() -> None:
    table = {"dim": {"a": ["a value", "a"], "b": ["value"]}, "other": {"c": ["c"]}}
    words_ = vocabulary(one=_atlas("One", table))
    assert resolve(words_, ["c", "value"]) == ("one", ("dim/b", "other/c"))
    with pytest.raises(MissingValueError, match="missing the other for atlas 'one'"):
        resolve(words_, ["a value"])  # one value, not 'a' (a filler) and 'value'


@pytest.mark.parametrize(
    ("values", "named", "error", "message"),
    [
        (["red tiny"], {}, UnknownValueError, "unknown size 'tiny'; valid: big, small"),
        (["red big huge"], {}, SelectionError, "unknown word 'huge' for atlas 'toy' (the other"),
        (["shiny tiny"], {}, SelectionError, "unknown words 'shiny', 'tiny' for atlas 'toy'"),
        (["red"], {}, MissingValueError, "missing the size for atlas 'toy': give one of big"),
        (["red blue big"], {}, SelectionError, "'red' and 'blue' give two values of the colour"),
        (["blue big"], {"colour": "red"}, SelectionError, "'colour=red' and 'blue' give two"),
        (["red", "big"], {"weight": "1"}, UnknownValueError, "dimension of atlas 'toy' 'weight'"),
        (["red"], {"size": "huge"}, UnknownValueError, "unknown size 'huge'; valid: big, small"),
        (["size=big", "size=small", "red"], {}, SelectionError, "'size' is given twice"),
        (["red " * 40], {}, SelectionError, "it has 40 words; a selection has at most 32"),
        (["red big " + "z" * 5000], {}, SelectionError, "unknown word 'zzzzzzzzzzzzzzzzzzzz'...'"),
        (["red blue red blue green"], {}, SelectionError, "'red' and 'blue' give two values"),
    ],
)
def test_a_selection_that_cannot_be_read_says_why(
    values: list[str], named: dict[str, str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        resolve(WORDS, values, named, "toy")
    assert message in str(caught.value)
    assert isinstance(caught.value, ValueError)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(
                ["red", "big", "x", "y", "a", "on", "toy", "cars", "=", "colour=", "ev"]
            ),
            st.text(max_size=8),
        ),
        max_size=12,
    ),
    st.sampled_from([None, "toy", "cars", "empty"]),
)
def test_any_words_give_a_selection_or_a_precise_error(values: list[str], name: str | None) -> None:
    outcome: object
    try:
        outcome = resolve(WORDS, values, None, name)
    except (UnknownValueError, UnknownIdError) as error:  # nothing else may escape
        outcome = error
    if isinstance(outcome, Exception):
        assert len(str(outcome)) < 2000, "long words are cut, long lists shortened"
    else:
        found, chosen = outcome  # type: ignore[misc]
        assert found == "empty" or len(chosen) == 2


def test_without_an_atlas_the_error_is_that_of_the_atlas_that_knew_most_words() -> None:
    with pytest.raises(UnknownValueError, match="unknown speed 'tiny'"):
        resolve(WORDS, ["petrol tiny"])
    with pytest.raises(UnknownValueError, match="unknown dimension 'weight'; valid: colour"):
        resolve(WORDS, ["red"], {"weight": "1"})


# --- the shipped data: what users were promised ---------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "argv",
    [
        ["eager on CPU"],
        ["eager", "on", "CPU"],
        ["Eager mode on a cpu"],
        ["--mode", "eager", "--device", "cpu"],
        ["mode=eager", "device=CPU"],
        ["cpu", "--mode", "eager"],
        ["PyTorch, eager, host"],
    ],
)
def test_a_phrase_prints_what_the_values_print(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    expected = run(capsys, "path", "eager", "cpu")
    assert expected[0] == 0
    assert run(capsys, "path", *argv) == expected


def test_phrases_of_both_atlases_give_their_paths() -> None:
    assert atlas.path("torch.compile on an NVIDIA GPU") == atlas.path("compile", "gpu")
    llama = atlas.path("llama.cpp with CUDA, partial offload")
    assert llama == atlas.path("NVIDIA GPU", "hybrid", atlas="llamacpp")
    assert atlas.path("metal", "all") == atlas.path("apple silicon", "all", atlas="llama.cpp")
    assert atlas.path(device="metal", offload="full").atlas == "llamacpp"
    assert atlas.path("llama.cpp with CUDA, partly offloaded") == llama
    with pytest.raises(UnknownValueError, match="unknown offload 'mostly offloaded'; valid:"):
        atlas.path("llama.cpp with CUDA, mostly offloaded")


def test_the_table_reads_words_as_the_api_does() -> None:
    export = _resources.export_file().read_bytes()
    table = _resources.path_table_file().read_bytes()
    data = json.loads(table)
    from_index = _pathtable.vocabulary_data(query.index())
    assert {k: data[k] for k in ("ids", "folded")} == {k: from_index[k] for k in ("ids", "folded")}
    for atlas_id, found in from_index["atlases"].items():
        assert {k: data["atlases"][atlas_id][k] for k in found} == found
    for values, named in [
        (["eager on CPU"], {}),
        (["llama.cpp with CUDA, partial offload"], {}),
        (["cpu"], {"mode": "compile"}),
        (["metal", "all"], {}),
    ]:
        expected = _pathtable.render(query.path(*values, **named))
        assert _pathtable.lookup(values, None, export, table, named) == expected


def test_the_phrase_form_needs_no_pydantic() -> None:
    script = (
        "import sys; from atlas import cli; code = cli.main(['path', 'eager', 'on', 'CPU']);"
        "assert code == 0; assert 'pydantic' not in sys.modules, 'pydantic imported'"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == _pathtable.render(atlas.path("eager", "cpu"))


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["path"], "missing the mode for atlas 'pytorch'"),
        (["path", "eager", "on", "TPU"], "unknown device 'TPU'; valid: CPU, NVIDIA GPU"),
        (["path", "--offload", "full", "--mode", "eager"], "dimension of atlas 'pytorch'"),
        (["path", "--atlas", "llamacpp", "eager", "cpu"], "unknown offload 'eager'"),
        (["path", "--offload", "full", "--atlas", "pytorch"], "dimension of atlas 'pytorch'"),
        (["path", "pytorch", "llama.cpp", "cpu"], "it names more than one atlas"),
        (["values", "nope"], "unknown atlas id 'nope'"),
    ],
)
def test_wrong_selections_are_one_line_with_status_1(
    capsys: pytest.CaptureFixture[str], argv: list[str], needle: str
) -> None:
    code, out, err = run(capsys, *argv)
    assert (code, out) == (1, "")
    assert len(err.strip().splitlines()) == 1
    assert needle in err


def test_the_help_describes_both_atlases_the_forms_and_runs_its_examples(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["path", "--help"])
    text = capsys.readouterr().out
    for needle in (
        "PyTorch (--atlas pytorch): MODE DEVICE",
        "llama.cpp (--atlas llamacpp): DEVICE OFFLOAD",
        "--offload OFFLOAD",
        "all layers on GPU, hybrid, CPU only",
        'atlas path "eager on CPU"',
        "atlas path mode=eager device=cpu",
        "atlas path --mode eager --device cpu",
    ):
        assert needle in text, needle
    for line in cli_selection.EXAMPLES:
        assert line in text
        assert run(capsys, *shlex.split(line)[1:])[0] == 0, line


def test_options_are_made_from_the_dimensions_and_never_shadow_others(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = _atlas("Odd", {"atlas": {"a": ["a"]}, "stage kind": {"b": ["b"]}})
    monkeypatch.setattr(cli_selection, "_vocabulary", lambda: vocabulary(odd=odd))
    parser = _parse.parser.__wrapped__()  # a fresh parser, with these dimensions
    path = parser._subparsers._group_actions[0].choices["path"]  # type: ignore[union-attr]
    text = path.format_help()
    assert "--stage-kind STAGE_KIND" in text
    assert "the atlas, by id or label" in text  # --atlas is still the atlas
    assert "    atlas=        a" in text  # given as atlas=a instead
    args = parser.parse_args(["path", "x", "--stage-kind", "b"])
    assert cli_selection.named(args) == {"stage kind": "b"}


def _outcome(values: list[str]) -> object:
    try:
        return resolve(WORDS, values)
    except (SelectionError, UnknownValueError) as error:
        return (type(error).__name__, str(error), error.choices)


_TOY_WORDS = ["red", "blue", "warm", "cold", "x", "y", "big", "large", "small", "little"]
_CAR_WORDS = ["petrol", "electric", "ev", "fast", "slow", "big", "red", "car", "park"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*_TOY_WORDS, *_CAR_WORDS, "on", "nope"]), max_size=5))
def test_skipping_atlases_that_cannot_read_the_words_changes_no_outcome(chosen: list[str]) -> None:
    """Atlases with a word they do not know are read only for an error: same results, same
    errors (from the atlas that knew the most words) as reading every atlas."""
    for values in ([" ".join(chosen)], chosen):
        quick = _outcome(values)
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr("atlas.query._selection.may_read", lambda *_: True)
            assert _outcome(values) == quick


def test_an_atlas_that_does_not_know_a_word_is_not_searched(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from atlas.query import _selection  # noqa: PLC0415

    read_for: list[str] = []
    real = _selection.read

    def spy(atlas: Any, *args: Any) -> Any:
        read_for.append(atlas.id)
        return real(atlas, *args)

    monkeypatch.setattr(_selection, "read", spy)
    assert resolve(WORDS, ["warm little"]) == ("toy", ("colour/red", "size/small"))
    assert read_for == ["toy"]  # 'warm' and 'little' name nothing of the car park
    read_for.clear()
    with pytest.raises(UnknownValueError, match="unknown size 'petrol'"):
        resolve(WORDS, ["warm petrol"])  # no atlas knows both: every one read for the error
    assert read_for == ["toy", "cars"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.lists(
            st.sampled_from([*_TOY_WORDS, *_CAR_WORDS, "on", "nope", "toy", "colour=red", "Big"]),
            min_size=1,
            max_size=3,
        ).map(" ".join),
        max_size=3,
    )
)
def test_the_quick_reading_answers_as_every_rule_does(values: list[str]) -> None:
    """Where one atlas alone may read the values by rule 1, the quick way gives the same answer."""
    from atlas.query import _selection  # noqa: PLC0415

    quick = _selection._only_reading(WORDS, values)
    if quick is not None:
        assert quick == _selection._resolve(WORDS, values, None, None)


def _shipped_names() -> list[str]:
    """Every name of a value of the shipped atlases, with the atlases' names."""
    shipped = query.vocabulary()
    names = {key for atlas in shipped.atlases for keys in atlas.keys for key in keys}
    return sorted(names | set(shipped.folded))


def _one_name_per_dimension() -> st.SearchStrategy[list[str]]:
    """A name of a value of each dimension of a shipped atlas, in order (rule 1's form)."""
    shipped = query.vocabulary()
    return st.sampled_from(shipped.atlases).flatmap(
        lambda atlas: st.tuples(*(st.sampled_from(sorted(keys)) for keys in atlas.keys)).map(list)
    )


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        _one_name_per_dimension(),
        st.lists(
            st.lists(
                st.sampled_from([*_shipped_names(), "on", "a", "with", "nope", ",", "gpu;"]),
                min_size=1,
                max_size=3,
            ).map(" ".join),
            max_size=4,
        ),
    )
)
def test_the_quick_reading_answers_as_every_rule_does_on_the_shipped_words(
    values: list[str],
) -> None:
    from atlas.query import _selection  # noqa: PLC0415

    shipped = query.vocabulary()
    quick = _selection._only_reading(shipped, values)
    if quick is not None:
        assert quick == _selection._resolve(shipped, values, None, None)


def test_the_quick_reading_takes_the_common_call_and_leaves_the_rest() -> None:
    from atlas.query import _selection  # noqa: PLC0415

    shipped = query.vocabulary()
    found = _selection._only_reading(shipped, ["torch.compile", "NVIDIA GPU"])
    assert found == resolve(shipped, ["torch.compile", "NVIDIA GPU"], {}, None)
    assert found is not None
    assert _selection._only_reading(WORDS, ["warm", "little"]) == (
        "toy",
        ("colour/red", "size/small"),
    )
    for values in (
        ["red", "big"],  # both atlases know the words
        ["warm little"],  # one value for two dimensions: rule 2
        ["toy", "warm", "little"],  # names an atlas
        ["colour=warm", "little"],  # a named value
        ["warm"] * 40,  # too many words: the error
        ["warm", "nope"],  # a word no atlas knows
        ["little", "warm"],  # not in the dimensions' order
    ):
        assert _selection._only_reading(WORDS, values) is None, values


def test_the_common_call_does_not_go_the_general_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The quick reading is taken (kills ``found = None`` in ``resolve``)."""
    from atlas.query import _selection  # noqa: PLC0415

    shipped = query.vocabulary()
    expected = resolve(shipped, ["torch.compile", "NVIDIA GPU"])

    def general(*_: object) -> None:
        raise AssertionError("the general way was taken")

    monkeypatch.setattr(_selection, "_resolve", general)
    assert resolve(shipped, ["torch.compile", "NVIDIA GPU"]) == expected


def test_the_quick_reading_leaves_a_named_value_and_a_tie_to_every_rule() -> None:
    """An ``=`` in the words, or two atlases that know every word, go the general way.

    A value may be named ``colour=red`` and still be read as ``colour`` named ``red``; an atlas
    whose words are exactly the words given may read them as well as one that knows more.
    """
    from atlas.query import _selection  # noqa: PLC0415

    named = vocabulary(
        toy=_atlas("Toy", {"colour": {"red": ["red"]}, "size": {"big": ["big", "colour=red"]}})
    )
    assert _selection._only_reading(named, ["red", "colour=red"]) is None
    exact = _atlas("Exact", {"p": {"a": ["p/a"]}, "q": {"b": ["q/b"]}})  # knows p/a, q/b
    more = _atlas("More", {"p": {"a": ["p/a"]}, "q": {"b": ["q/b"], "c": ["q/c"]}})
    two = vocabulary(exact=exact, more=more)
    assert two.by_id["exact"].known == {"p/a", "q/b"}
    assert _selection._only_reading(two, ["p/a", "q/b"]) is None
    with pytest.raises(SelectionError, match="fits more than one atlas"):
        resolve(two, ["p/a", "q/b"])
