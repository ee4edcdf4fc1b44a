"""Property tests of the line locator: an index of the lines answers as a scan of them would."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.data._locator import Locator

NAMESPACE = "https://x.org/s/"
_PREFIX = re.compile(r"^\s*@prefix\s+([\w.-]*):\s*<([^>]*)>", re.IGNORECASE)


def _scanned(text: str, iri: str) -> int | None:
    """The line of ``iri`` found by looking at every line, as ``atlas check`` always did."""
    lines = text.splitlines()
    prefixes = {}
    for line in lines:
        match = _PREFIX.match(line)
        if match:
            prefixes[match.group(1)] = match.group(2)
    needles = [f"<{iri}>"]
    for prefix, namespace in prefixes.items():
        if iri.startswith(namespace) and len(iri) > len(namespace):
            needles.append(f"{prefix}:{iri[len(namespace) :]}")
    for starts in (True, False):
        for number, line in enumerate(lines, start=1):
            text_ = line.strip()
            for needle in needles:
                hit = text_.startswith(needle) if starts else needle in text_
                if hit and (
                    len(text_) == len(needle) or not starts or text_[len(needle)] in " \t;"
                ):
                    return number
    return None


NAMES = st.sampled_from(["a", "b", "a;b", "ab"])
WORDS = st.one_of(
    NAMES.map(lambda n: f"s:{n}"),
    NAMES.map(lambda n: f"<{NAMESPACE}{n}>"),
    st.sampled_from(["@prefix s: <https://x.org/s/> .", "@PREFIX s:<https://x.org/s/a>", "ex:p"]),
    st.sampled_from(['"s:a"', ";", ".", ","]),
)
SPACES = st.sampled_from([" ", "\t", "", "  ", "\n", "\r\n", "\r", "\u2028", "\xa0", "\x0c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(SPACES, WORDS), max_size=25), NAMES)
def test_the_locator_finds_the_line_that_a_scan_finds(
    parts: list[tuple[str, str]], name: str
) -> None:
    text = "".join(space + word for space, word in parts)
    iri = NAMESPACE + name
    assert Locator(text).line_of(iri) == _scanned(text, iri)
