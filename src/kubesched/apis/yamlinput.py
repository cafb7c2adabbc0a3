"""Bounded YAML, for every file kubesched reads (--config, kubeconfig, `explain -f`).

PyYAML expands aliases lazily into shared objects, so a 1 KB "billion laughs" document
parses at once and then costs minutes of CPU (or all memory) in whatever walks it. Like
sigs.k8s.io/yaml, which refuses excessive aliasing, `BoundedLoader` counts the nodes a
document would have with every alias expanded and refuses it above `MAX_EXPANDED_NODES`;
`check_size` refuses files above `MAX_YAML_BYTES` before parsing. Bottom layer: config,
kube and explain all read YAML through it.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, SequenceNode

from kubesched.errors import KubeschedError

MAX_YAML_BYTES = 8 * 1024 * 1024
"""Larger than any config or kubeconfig, and than a 1.5 MiB object written as YAML."""
MAX_EXPANDED_NODES = 500_000
"""Nodes with aliases expanded; real documents (even a pod of 1.5 MiB) stay far below."""


class YamlBoundsError(KubeschedError, yaml.YAMLError):
    """The document is too large, or expands (through aliases) to too many nodes."""


def check_size(data: bytes | str, *, source: str) -> None:
    """Refuse input over `MAX_YAML_BYTES` (before any parsing)."""
    if len(data) > MAX_YAML_BYTES:
        raise YamlBoundsError(
            f"{source} is {len(data)} bytes, more than the {MAX_YAML_BYTES} kubesched reads"
        )


def expanded_size(root: Node, *, limit: int = MAX_EXPANDED_NODES) -> int:
    """How many nodes `root` has with aliases expanded; raises YamlBoundsError past `limit`."""
    sizes: dict[int, int] = {}

    def size(node: Node) -> int:
        known = sizes.get(id(node))
        if known is not None:
            return known
        total = 1
        if isinstance(node, SequenceNode):
            total += sum(size(child) for child in node.value)
        elif isinstance(node, MappingNode):
            total += sum(size(key) + size(value) for key, value in node.value)
        if total > limit:
            raise YamlBoundsError(
                f"excessive aliasing: the document expands to more than {limit} nodes"
            )
        sizes[id(node)] = total
        return total

    return size(root)


class BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses documents expanding (through aliases) past the bound."""

    def compose_document(self) -> Any:
        node = super().compose_document()
        if node is not None:
            expanded_size(node)
        return node


def load_all_bounded(data: bytes | str, *, source: str) -> list[Any]:
    """Every document in `data` (safe, bounded); raises yaml.YAMLError."""
    check_size(data, source=source)
    return list(yaml.load_all(data, Loader=BoundedLoader))


def describe_error(error: BaseException) -> str:
    """One line for a YAML error: `line 3, column 7: <problem>` when it has a position."""
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        context = f" ({error.context})" if error.context else ""
        return f"line {mark.line + 1}, column {mark.column + 1}: {error.problem}{context}"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    return " ".join(str(error).split()) or type(error).__name__
