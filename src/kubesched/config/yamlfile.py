"""Reading the `--config` file: YAML (or JSON) through PyYAML's safe loader, made strict.

Like kube-scheduler's strict decoder it rejects duplicate fields; like Go's YAML-to-JSON step
it keeps dates as strings. Every failure is a ConfigError with one line naming the file and,
for malformed YAML, the line and column.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, ScalarNode

from kubesched.apis.yamlinput import BoundedLoader, YamlBoundsError, check_size
from kubesched.config.errors import ConfigError

_TIMESTAMP = "tag:yaml.org,2002:timestamp"
_MERGE = "tag:yaml.org,2002:merge"


class _StrictLoader(BoundedLoader):
    """Bounded SafeLoader (see `kubesched.apis.yamlinput`) that rejects duplicate keys and
    reads timestamps as plain strings."""

    def construct_mapping(self, node: MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[str] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, ScalarNode) or key_node.tag == _MERGE:
                continue
            if key_node.value in seen:
                raise ConstructorError(
                    None, None, f"duplicate field {key_node.value!r}", key_node.start_mark
                )
            seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)


_StrictLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != _TIMESTAMP]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def read_document(path: str) -> object:
    """The single YAML document in the file at `path`, or raise a one-line ConfigError."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        reason = error.strerror or str(error)
        raise ConfigError([f"--config: cannot read {path}: {reason}"]) from error
    except ValueError as error:  # e.g. a NUL byte in the path
        raise ConfigError([f"--config: {path!r} is not a valid path: {error}"]) from error
    return parse_document(data, source=path)


def parse_document(data: bytes | str, *, source: str) -> object:
    """Parse one YAML document; `source` names it in the error message."""
    try:
        check_size(data, source=source)
        return yaml.load(data, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except YamlBoundsError as error:
        raise ConfigError([f"{source}: refused: {error}"]) from error
    except yaml.YAMLError as error:
        raise ConfigError([f"{source}: invalid YAML: {_one_line(error)}"]) from error
    except RecursionError as error:
        raise ConfigError([f"{source}: invalid YAML: nested too deeply"]) from error


def _one_line(error: yaml.YAMLError) -> str:
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        problem = error.problem or "malformed"
        context = f" ({error.context})" if error.context else ""
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}{context}"
    return " ".join(str(error).split())
