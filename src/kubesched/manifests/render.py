"""Objects -> one multi-document YAML stream, in a stable order, ready for `kubectl apply -f -`.

Multi-line strings (the ConfigMap's config.yaml) are written as literal blocks (`|`), so the
embedded config reads like the file it is.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml


class _Dumper(yaml.SafeDumper):
    """SafeDumper writing multi-line strings as literal blocks."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _represent_str)


def to_yaml(objects: Iterable[dict[str, Any]]) -> str:
    """The objects as YAML documents separated by `---`, keys in the order built."""
    documents = [
        yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=False, width=100)
        for obj in objects
    ]
    return "---\n" + "---\n".join(documents)
