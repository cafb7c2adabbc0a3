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


NO_WRAP = 1 << 20
"""A width no line reaches: the chart's markers must stay on one line each."""


def to_yaml(objects: Iterable[dict[str, Any]], *, width: int = 100) -> str:
    """The objects as YAML documents separated by `---`, keys in the order built; long
    scalars folded at `width`."""
    documents = [
        yaml.dump(obj, Dumper=_Dumper, sort_keys=False, allow_unicode=False, width=width)
        for obj in objects
    ]
    return "---\n" + "---\n".join(documents)
