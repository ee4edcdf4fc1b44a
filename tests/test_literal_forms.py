"""Typed literals read without rdflib: the lexical forms computed here are rdflib's own.

``atlas.data._graph`` answers the commonest typed literals itself (so that ``atlas check`` and
the export need not import rdflib); every form it answers must be the one rdflib gives.
"""

from __future__ import annotations

import warnings

import pytest
import rdflib
from hypothesis import given
from hypothesis import strategies as st
from pyoxigraph import Literal, NamedNode

from atlas.data import _graph
from atlas.data._rdflib import quiet_rdflib
from atlas.models._iri import NAMESPACES

XSD = NAMESPACES["xsd"]


def rdflib_form(value: str, datatype: str) -> str:
    with warnings.catch_warnings(), quiet_rdflib():
        warnings.simplefilter("ignore")
        return str(rdflib.Literal(value, datatype=XSD + datatype))


def check(value: str, datatype: str) -> str | None:
    known = _graph._known_form(Literal(value, datatype=NamedNode(XSD + datatype)))
    if known is not None:
        assert known == rdflib_form(value, datatype), (value, datatype)
    return known


@pytest.mark.parametrize(
    ("value", "datatype", "answered"),
    [
        ("2026-12-03T00:00:00Z", "dateTime", "2026-12-03T00:00:00+00:00"),
        ("2026-12-03T10:20:30+00:00", "dateTime", "2026-12-03T10:20:30+00:00"),
        ("2026-12-03T10:20:30.5Z", "dateTime", None),  # a fraction: rdflib decides
        ("2026-12-03T10:20:30+01:00", "dateTime", None),
        ("2026-02-30T00:00:00Z", "dateTime", None),  # no such day
        ("2026-12-03", "date", "2026-12-03"),
        ("2026-13-03", "date", None),
        ("0", "integer", "0"),
        ("-42", "integer", "-42"),
        ("042", "integer", None),
        ("+5", "integer", None),
        ("true", "boolean", "true"),
        ("1", "boolean", None),
        ("1.5", "decimal", None),
    ],
)
def test_known_forms_are_rdflibs(value: str, datatype: str, answered: str | None) -> None:
    assert check(value, datatype) == answered


@given(
    st.datetimes(timezones=st.none()).map(lambda d: d.replace(microsecond=0).isoformat()),
    st.sampled_from(["Z", "+00:00", ""]),
)
def test_any_utc_date_time_to_the_second_reads_as_rdflib_reads_it(moment: str, zone: str) -> None:
    check(moment + zone, "dateTime")


@given(st.integers())
def test_any_integer_reads_as_rdflib_reads_it(number: int) -> None:
    assert check(str(number), "integer") == str(number)


def test_the_shipped_dataset_needs_no_rdflib_for_its_literals() -> None:
    from atlas.data import _resources  # noqa: PLC0415

    folder = _resources.dataset_dir()
    files = [_graph.TurtleFile(p.name, p.read_text(encoding="utf-8")) for p in folder.glob("*.ttl")]
    graph = _graph.parse(files)
    literals = {
        o
        for properties in graph.subjects.values()
        for objects in properties.values()
        for o in objects
        if isinstance(o, Literal) and not _graph.plain(o)
    }
    assert literals
    assert all(_graph._known_form(o) is not None for o in literals)
