"""The chart's values as one tree of documented entries, and the three files written from
it: `values.yaml` (the defaults, a comment before each key), `values.schema.json` (what helm
checks the values against) and the values table of the chart's README. One source, so the
three cannot disagree.

    tree = (Group(key="image", doc="...", children=(Leaf(key="tag", default="", ...),)),)
    values_yaml(tree); json_schema(tree, title="..."); value_rows(tree)
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from kubesched.manifests.chart.schemas import DRAFT, Schema


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaf:
    """A value: its key, default, meaning (one or more lines) and schema."""

    key: str
    default: Any
    doc: str
    schema: Schema


@dataclass(frozen=True, slots=True, kw_only=True)
class Group:
    """A mapping of values (`image`, `serviceMonitor`, ...)."""

    key: str
    doc: str
    children: tuple[Entry, ...]


Entry = Leaf | Group


def defaults(entries: Sequence[Entry]) -> dict[str, Any]:
    """The default values, as helm reads them from values.yaml."""
    return {
        entry.key: entry.default if isinstance(entry, Leaf) else defaults(entry.children)
        for entry in entries
    }


def values_yaml(entries: Sequence[Entry]) -> str:
    """values.yaml: each key after its comment, a blank line between top-level keys."""
    return "\n".join("\n".join(_yaml_lines(entry, indent="")) + "\n" for entry in entries)


def _yaml_lines(entry: Entry, *, indent: str) -> Iterator[str]:
    yield from (f"{indent}# {line}" for line in entry.doc.splitlines())
    if isinstance(entry, Group):
        yield f"{indent}{entry.key}:"
        for child in entry.children:
            yield from _yaml_lines(child, indent=indent + "  ")
        return
    text = yaml.safe_dump({entry.key: entry.default}, sort_keys=False, width=100)
    yield from (f"{indent}{line}" for line in text.splitlines())


def json_schema(entries: Sequence[Entry], *, title: str) -> Schema:
    """values.schema.json: every group a closed object, every leaf its schema."""
    return {"$schema": DRAFT, "title": title, **_object(entries)}


def _object(entries: Sequence[Entry]) -> Schema:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {entry.key: _entry_schema(entry) for entry in entries},
    }


def _entry_schema(entry: Entry) -> Schema:
    description = " ".join(entry.doc.split())
    if isinstance(entry, Group):
        return {"description": description, **_object(entry.children)}
    return {"description": description, **entry.schema}


def schema_json(schema: Schema) -> str:
    """The schema as the committed file writes it."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def value_rows(entries: Sequence[Entry], *, prefix: str = "") -> Iterator[tuple[str, str, str]]:
    """(dotted path, default as JSON, meaning) for every leaf, in values.yaml's order."""
    for entry in entries:
        path = f"{prefix}{entry.key}"
        if isinstance(entry, Group):
            yield from value_rows(entry.children, prefix=f"{path}.")
        else:
            default = json.dumps(entry.default, ensure_ascii=False, separators=(", ", ": "))
            yield path, default, " ".join(entry.doc.split())


def markdown_table(entries: Sequence[Entry]) -> str:
    """The README's table of every value."""
    lines = ["| value | default | meaning |", "| --- | --- | --- |"]
    for path, default, meaning in value_rows(entries):
        cells = (f"`{path}`", f"`{default}`", meaning)
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines) + "\n"
