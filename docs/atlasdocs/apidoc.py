"""The Python API reference: mkdocstrings directives for the public surface, and the models' fields.

The public surface is ``atlas.__all__``, read at build time: a name added there appears here at
the next build. Functions and errors are rendered from their docstrings by mkdocstrings (its
Python handler reads ``src/``); the models get, besides their docstrings, a table of their
fields made from the models themselves (the keys of the JSON export, their types as the JSON
Schema states them, and their descriptions).
"""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import BaseModel

import atlas
import atlas.models
from atlasdocs.markdown import code, escape, table

__all__ = ["api_reference", "model_reference", "models"]

_NOT_RENDERED = {
    "__version__": "the package's version, a `str` (`atlas --version` also shows the data's)"
}


def _public() -> dict[str, list[str]]:
    """The names of ``atlas.__all__`` by kind: functions, models, errors (and other classes)."""
    kinds: dict[str, list[str]] = {"functions": [], "models": [], "errors": []}
    for name in atlas.__all__:
        if name in _NOT_RENDERED:
            continue
        value = getattr(atlas, name)
        if inspect.isclass(value) and issubclass(value, BaseModel):
            kinds["models"].append(name)
        elif inspect.isclass(value):
            kinds["errors"].append(name)  # the errors, and Problem: what a check reports
        else:
            kinds["functions"].append(name)
    return kinds


def _directive(path: str, **options: Any) -> str:
    lines = [f"::: {path}", "    options:"]
    for key, value in options.items():
        shown = repr(value).lower() if isinstance(value, bool) else value
        lines.append(f"      {key}: {shown}")
    return "\n".join(lines)


def api_reference() -> str:
    """``atlas.__all__``: its functions and errors in full, its models listed (see the models)."""
    kinds = _public()
    parts = ["## Functions", ""]
    parts += [_directive(f"atlas.{name}", heading_level=3) + "\n" for name in kinds["functions"]]
    parts += ["## Models", "", "Documented with their fields on [the models' page](models.md).", ""]
    rows = []
    for name in kinds["models"]:
        value = getattr(atlas, name)
        target = _documented_path(value)  # every public model is on the models' page
        rows.append([f"[{code('atlas.' + name)}][{target}]", escape(_summary(value))])
    parts += [table(["model", "what it is"], rows), ""]
    parts += ["## Errors and problems", ""]
    parts += [_directive(f"atlas.{name}", heading_level=3) + "\n" for name in kinds["errors"]]
    parts += ["## Other names", ""]
    parts += [f"- `atlas.{name}`: {text}" for name, text in _NOT_RENDERED.items()]
    return "\n".join(parts) + "\n"


def _summary(value: object) -> str:
    return (inspect.getdoc(value) or "").split("\n\n")[0]


def models() -> list[type[BaseModel]]:
    """The models documented: every class of ``atlas.models.__all__``, and the public surface's."""
    found: list[type[BaseModel]] = []
    for module, names in ((atlas.models, atlas.models.__all__), (atlas, atlas.__all__)):
        for name in names:
            value = getattr(module, name, None)
            if isinstance(value, type) and issubclass(value, BaseModel) and value not in found:
                found.append(value)
    return found


def model_reference() -> str:
    """Each model: its docstring and methods (mkdocstrings), then a table of its fields."""
    documented = {cls.__name__: cls for cls in models()}
    parts = []
    for cls in documented.values():
        path = _documented_path(cls)
        members = _members(cls)
        parts.append(_directive(path, heading_level=2, members=members or False))
        parts.append("")
        parts.append(_fields(cls, documented))
        parts.append("")
    return "\n".join(parts)


def _documented_path(cls: type[BaseModel]) -> str:
    if cls.__name__ in atlas.models.__all__:
        return f"atlas.models.{cls.__name__}"
    return f"atlas.{cls.__name__}"


def _members(cls: type[BaseModel]) -> list[str]:
    """Its own public methods and properties, not its fields (the table shows those)."""
    fields = set(cls.model_fields) | set(cls.model_computed_fields)
    return [
        name
        for name, value in vars(cls).items()
        if not name.startswith("_")
        and name not in fields
        and name != "model_config"
        and (inspect.isfunction(value) or isinstance(value, property | classmethod | staticmethod))
    ]


def _fields(cls: type[BaseModel], documented: dict[str, type[BaseModel]]) -> str:
    schema = cls.model_json_schema(mode="serialization")
    required = set(schema.get("required", ()))
    names = {(field.alias or name): name for name, field in cls.model_fields.items()}
    names |= {(field.alias or name): name for name, field in cls.model_computed_fields.items()}
    rows = []
    for key, prop in schema.get("properties", {}).items():
        attribute = names.get(key, key)
        rows.append(
            [
                code(key) + ("" if attribute == key else f" (`.{attribute}`)"),
                _type(prop, documented),
                "yes" if key in required else "no",
                escape(prop.get("description", "")),
            ]
        )
    heading = "**Fields** (JSON key, and the attribute where it differs):\n\n"
    return heading + table(["key", "type", "required", "what it holds"], rows)


def _type(prop: dict[str, Any], documented: dict[str, type[BaseModel]]) -> str:  # noqa: PLR0911
    """A property's type as the JSON Schema states it, in a few words."""
    if "$ref" in prop:
        name = prop["$ref"].rsplit("/", 1)[-1]
        if name in documented:
            return f"[{name}][{_documented_path(documented[name])}]"
        return escape(name)
    if "const" in prop:
        return code(repr(prop["const"]))
    if "enum" in prop:
        return " or ".join(code(repr(value)) for value in prop["enum"])
    if "anyOf" in prop:
        return " or ".join(_type(option, documented) for option in prop["anyOf"])
    kind = prop.get("type", "any")
    if kind == "array":
        return f"array of {_type(prop.get('items', {}), documented)}"
    if kind == "object" and isinstance(prop.get("additionalProperties"), dict):
        return f"object of {_type(prop['additionalProperties'], documented)}"
    if "format" in prop:
        return f"{kind} ({escape(prop['format'])})"
    return escape(kind)
