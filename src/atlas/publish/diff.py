"""Compare two exports: what was added, removed and changed, and the version bump it requires.

Records are matched by id (sources by URL). The data version follows semver: a patch only
refreshes quotes and check dates, a minor adds or changes records (or deprecates one), a major
removes an id. Removing an id that was never deprecated breaks users' links and is a violation:
retire it with ``owl:deprecated true`` and ``dcterms:isReplacedBy`` instead.

>>> from atlas.query.paths import load
>>> diff(load(), load()).is_empty
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from atlas.errors import Problem
from atlas.models._iri import BASE_IRI

if TYPE_CHECKING:
    from atlas.models import AtlasDocument

__all__ = ["Change", "Diff", "bumped", "diff", "diff_files"]

Level = Literal["none", "patch", "minor", "major"]
Kind = Literal["added", "removed", "renamed", "changed", "deprecated"]

_LEVELS: tuple[Level, ...] = ("none", "patch", "minor", "major")

#: Collection -> (singular noun, IRI base of its ids; "" when the key is the IRI itself).
COLLECTIONS: dict[str, tuple[str, str]] = {
    "atlases": ("atlas", "atlas/"),
    "schemes": ("scheme", "scheme/"),
    "concepts": ("value", "scheme/"),
    "stages": ("stage", "stage/"),
    "steps": ("step", "step/"),
    "citations": ("citation", "citation/"),
    "sources": ("source", ""),
    "technologies": ("technology", "technology/"),
    "relations": ("relation", "relation/"),
}

#: Fields whose change alone is a refresh (a patch): the quote and its check date.
REFRESH_FIELDS: dict[str, frozenset[str]] = {
    "citations": frozenset({"selector", "retrievedOn"}),
    "sources": frozenset({"retrievedOn", "version"}),
}


@dataclass(frozen=True)
class Change:
    """One record added, removed, renamed, changed or deprecated."""

    kind: Kind
    collection: str
    id: str
    level: Level
    label: str = ""
    fields: tuple[str, ...] = ()
    new_id: str | None = None
    violation: bool = False

    @property
    def noun(self) -> str:
        """The kind of record, e.g. 'stage'."""
        return COLLECTIONS[self.collection][0]

    @property
    def iri(self) -> str:
        """The IRI of the record."""
        base = COLLECTIONS[self.collection][1]
        return BASE_IRI + base + self.id if base else self.id

    def line(self) -> str:
        """The change as a changelog bullet."""
        label = f": {self.label}" if self.label else ""
        name = f"{self.noun.capitalize()} `{self.id}`"
        if self.kind == "renamed":
            return f"- {name} renamed to `{self.new_id}` without a deprecation{label}."
        if self.kind == "changed":
            shown = f" ({self.label})" if self.label else ""
            verb = "refreshed" if self.level == "patch" else "changed"
            return f"- {name}{shown}: {', '.join(self.fields)} {verb}."
        if self.kind == "deprecated":
            replaced = f", replaced by `{self.new_id}`" if self.new_id else ""
            return f"- {name}{replaced}{label}."
        if self.kind == "removed" and self.violation:
            return f"- {name}{label} (removed without a deprecation)."
        return f"- {name}{label}."

    def to_json(self) -> dict[str, Any]:
        """The change for tools."""
        data: dict[str, Any] = {
            "kind": self.kind,
            "collection": self.collection,
            "id": self.id,
            "iri": self.iri,
            "level": self.level,
            "label": self.label,
            "violation": self.violation,
        }
        if self.fields:
            data["fields"] = list(self.fields)
        if self.new_id is not None:
            data["newId"] = self.new_id
        return data


def bumped(version: str, level: Level) -> str:
    """The smallest version that makes a ``level`` bump over ``version``.

    >>> bumped("1.4.2", "patch"), bumped("1.4.2", "minor"), bumped("1.4.2", "major")
    ('1.4.3', '1.5.0', '2.0.0')
    """
    major, minor, patch = (int(p) for p in version.split("."))
    if level == "major":
        return f"{major + 1}.0.0"
    if level == "minor":
        return f"{major}.{minor + 1}.0"
    if level == "patch":
        return f"{major}.{minor}.{patch + 1}"
    return version


def _semver(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


@dataclass(frozen=True)
class Diff:
    """The changes between two exports and the version bump they require."""

    old_version: str
    new_version: str
    new_issued: str
    changes: tuple[Change, ...]

    @property
    def is_empty(self) -> bool:
        """True when no record differs."""
        return not self.changes

    @property
    def bump(self) -> Level:
        """The semver level the changes require: 'none', 'patch', 'minor' or 'major'."""
        return max((c.level for c in self.changes), key=_LEVELS.index, default="none")

    @property
    def required_version(self) -> str:
        """The smallest new version the changes allow."""
        return bumped(self.old_version, self.bump)

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Removals without deprecation (violations) and a version too low (a warning)."""
        found = [
            Problem(
                "violation",
                f"{c.noun} {c.id!r} "
                + (f"renamed to {c.new_id!r}" if c.kind == "renamed" else "removed")
                + " without a deprecation",
                subject=c.iri,
                hint="keep the record with owl:deprecated true and dcterms:isReplacedBy <new id>",
                code="removed",
            )
            for c in self.changes
            if c.violation
        ]
        if self.changes and _semver(self.new_version) < _semver(self.required_version):
            found.append(
                Problem(
                    "warning",
                    f"version {self.new_version!r} is too low for a {self.bump} change over "
                    f"{self.old_version!r}; use at least {self.required_version!r}",
                    hint="set dcat:version in catalog.ttl and export again",
                    code="version",
                )
            )
        return tuple(found)

    @property
    def exit_code(self) -> int:
        """1 when an id was removed without a deprecation, else 0."""
        return 1 if any(p.severity == "violation" for p in self.problems) else 0

    def summary(self) -> str:
        """One line: the versions and the bump required."""
        if self.is_empty:
            return f"no changes between {self.old_version} and {self.new_version}"
        return (
            f"{len(self.changes)} change{'s' * (len(self.changes) != 1)} from {self.old_version} "
            f"to {self.new_version}: a {self.bump} bump, at least {self.required_version}"
        )

    def changelog(self) -> str:
        """A Keep-a-Changelog fragment for the new version."""
        sections: dict[str, list[Change]] = {
            "Added": [],
            "Changed": [],
            "Deprecated": [],
            "Removed": [],
        }
        for change in self.changes:
            heading = {
                "added": "Added",
                "changed": "Changed",
                "deprecated": "Deprecated",
                "removed": "Removed",
                "renamed": "Removed",
            }[change.kind]
            sections[heading].append(change)
        lines = [f"## [{self.new_version}] - {self.new_issued}"]
        if self.is_empty:
            lines += ["", "No changes to the data."]
        for heading, changes in sections.items():
            if changes:
                lines += ["", f"### {heading}", *(c.line() for c in changes)]
        return "\n".join(lines) + "\n"

    def to_json(self) -> dict[str, Any]:
        """The diff for tools."""
        return {
            "oldVersion": self.old_version,
            "newVersion": self.new_version,
            "bump": self.bump,
            "requiredVersion": self.required_version,
            "changes": [c.to_json() for c in self.changes],
            "problems": [
                {
                    "severity": p.severity,
                    "message": p.message,
                    "subject": p.subject,
                    "hint": p.hint,
                    "code": p.code,
                }
                for p in self.problems
            ],
        }


def _records(document: AtlasDocument) -> dict[str, dict[str, dict[str, Any]]]:
    """Every record of a document as JSON data, per collection, keyed by id (sources by URL)."""
    from atlas.data.export import to_data  # noqa: PLC0415

    data = to_data(document)
    records: dict[str, dict[str, dict[str, Any]]] = {}
    for collection in COLLECTIONS:
        if collection == "concepts":
            items = [v for s in data["schemes"] for v in s["values"]]
        elif collection == "schemes":
            items = [{k: v for k, v in s.items() if k != "values"} for s in data["schemes"]]
        elif collection == "atlases":  # journeys are made from the steps, whose changes are told
            items = [{k: v for k, v in a.items() if k != "journeys"} for a in data["atlases"]]
        else:
            items = data[collection]
        key = "url" if collection == "sources" else "id"
        records[collection] = {item[key]: item for item in items}
    return records


class _Labels:
    """Readable labels of records, looked up in the new document, then the old one."""

    def __init__(
        self, old: dict[str, dict[str, dict[str, Any]]], new: dict[str, dict[str, dict[str, Any]]]
    ) -> None:
        self.old, self.new = old, new

    def stage(self, sid: str) -> str:
        record = self.new["stages"].get(sid) or self.old["stages"].get(sid) or {}
        return str(record.get("label", sid))

    def technology(self, tid: str) -> str:
        record = self.new["technologies"].get(tid) or self.old["technologies"].get(tid) or {}
        return str(record.get("label", tid))

    def of(self, collection: str, record: dict[str, Any]) -> str:
        if collection == "steps":
            start, end = self.stage(record["from"]), self.stage(record["to"])
            return f"{start} \u2014 {record['verb']} \u2192 {end}"
        if collection == "relations":
            return (
                f"{self.technology(record['from'])} {record['relation']} "
                f"{self.technology(record['to'])}"
            )
        if collection == "citations":
            quote = " ".join(str(record["selector"]["exact"]).split())
            return f"\u201c{quote[:60]}{'...' * (len(quote) > 60)}\u201d"  # noqa: PLR2004
        if collection == "sources":
            return str(record.get("title", ""))
        return str(record.get("label", ""))


def _without_id(record: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != key}


_Records = dict[str, dict[str, Any]]


def _renames(olds: _Records, news: _Records, key: str) -> dict[str, str]:
    """Removed ids that were not deprecated -> the added id whose record is the same but for it."""
    added = [i for i in news if i not in olds]
    renamed: dict[str, str] = {}
    for rid in (i for i in olds if i not in news):
        if olds[rid].get("deprecated"):
            continue
        twin = next(
            (
                a
                for a in added
                if a not in renamed.values()
                and _without_id(news[a], key) == _without_id(olds[rid], key)
            ),
            None,
        )
        if twin is not None:
            renamed[rid] = twin
    return renamed


def _removals(
    collection: str, olds: _Records, news: _Records, renamed: dict[str, str], labels: _Labels
) -> list[Change]:
    """The records gone from ``news``: renamed (a violation), or removed (one unless deprecated)."""
    changes: list[Change] = []
    for rid in sorted(i for i in olds if i not in news):
        record = olds[rid]
        label = labels.of(collection, record)
        if rid in renamed:
            changes.append(
                Change(
                    "renamed", collection, rid, "major", label, new_id=renamed[rid], violation=True
                )
            )
        else:
            violation = not record.get("deprecated")
            changes.append(Change("removed", collection, rid, "major", label, violation=violation))
    return changes


def _updates(collection: str, olds: _Records, news: _Records, labels: _Labels) -> list[Change]:
    """The records in both that differ: deprecated, refreshed (a patch) or changed."""
    changes: list[Change] = []
    for cid in sorted(i for i in olds if i in news):
        a, b = olds[cid], news[cid]
        if a == b:
            continue
        fields = tuple(sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k)))
        label = labels.of(collection, b)
        if b.get("deprecated") and not a.get("deprecated"):
            new_id = b.get("replacedBy")
            changes.append(
                Change("deprecated", collection, cid, "minor", label, fields, new_id=new_id)
            )
            continue
        refresh = REFRESH_FIELDS.get(collection, frozenset())
        level: Level = "patch" if set(fields) <= refresh else "minor"
        changes.append(Change("changed", collection, cid, level, label, fields=fields))
    return changes


def diff(old: AtlasDocument, new: AtlasDocument) -> Diff:
    """The changes from ``old`` to ``new``, in collection order, then by id."""
    before, after = _records(old), _records(new)
    labels = _Labels(before, after)
    changes: list[Change] = []
    for collection in COLLECTIONS:
        olds, news = before[collection], after[collection]
        renamed = _renames(olds, news, "url" if collection == "sources" else "id")
        changes += _removals(collection, olds, news, renamed, labels)
        changes.extend(
            Change("added", collection, aid, "minor", labels.of(collection, news[aid]))
            for aid in sorted(i for i in news if i not in olds)
            if aid not in renamed.values()
        )
        changes += _updates(collection, olds, news, labels)
    return Diff(old.version, new.version, new.issued.isoformat(), tuple(changes))


def diff_files(old: Path, new: Path) -> Diff:
    """Read two export files and compare them.

    Raises:
        DatasetError: when either file is not a valid export, naming the file.
    """
    return diff(_read(Path(old)), _read(Path(new)))


def _read(path: Path) -> AtlasDocument:
    """Read an export; an older release's @context (other terms) does not stop a comparison.

    Everything else is checked as :func:`atlas.checks.build.read` checks it: the records of both
    files are matched by id (sources by URL), so an id held twice, or a reference to a record the
    file lacks, is an error that names the file, the line and the JSON pointer.
    """
    from atlas.checks.build import read  # noqa: PLC0415

    return read(path, any_context=True)
