"""Checking a plugin's `pluginConfig` args (a dict from the YAML), with upstream's field names.

Errors are `ArgsError`s (ValueErrors) whose message names the args type and the field, then
the problem in kube-scheduler's words where it has them (its `field.Error` texts), e.g.
`NodeResourcesFitArgs.scoringStrategy.type: Unsupported value: "Bogus": supported values:
"LeastAllocated", ...`. `kubesched.config.plugin_check` relies on that `<Plugin>Args.` prefix
to name the field by its place in the file, as kube-scheduler does.

Each plugin with args has one typed, frozen `PluginArgs` dataclass named as upstream's
(`NodeResourcesFitArgs`, ...) next to the plugin: its field defaults are upstream's v1
defaults (written nowhere else), `from_v1(mapping)` decodes and validates a `pluginConfig`
args mapping, and `to_v1()` gives the mapping kube-scheduler's `--write-config-to` writes
(`kubesched.plugins.plugin_args` lists the in-tree ones).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, ClassVar, Self

from kubesched.errors import KubeschedError


class ArgsError(KubeschedError, ValueError):
    """Invalid plugin args (the framework reports it with the profile and plugin name)."""


class PluginArgs:
    """The base of a plugin's typed args (a frozen dataclass whose field defaults are the
    defaults): `default()`, `from_v1(mapping)` and `to_v1()`."""

    __slots__ = ()

    KIND: ClassVar[str]
    """The v1 kind, `<Plugin>Args`: the prefix of every error message."""

    @classmethod
    def default(cls) -> Self:
        """The args of a plugin configured with none: what `from_v1({})` returns."""
        return cls()

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Decode, default and validate a `pluginConfig[].args` mapping; raises ArgsError."""
        raise NotImplementedError

    def to_v1(self) -> dict[str, Any]:
        """The v1 mapping (without apiVersion and kind), keys sorted as kube-scheduler's
        `--write-config-to` writes them."""
        raise NotImplementedError


class UnknownFieldsError(ArgsError):
    """Fields the args type does not have: `fields` below `kind` (`NodeResourcesFitArgs` or a
    path below it, `NodeResourcesFitArgs.scoringStrategy`), and the `valid` ones there."""

    def __init__(self, kind: str, fields: Sequence[str], valid: Collection[str]) -> None:
        self.kind, self.fields, self.valid = kind, tuple(fields), tuple(sorted(valid))
        names = ", ".join(f'"{name}"' for name in self.fields)
        plural = "s" if len(self.fields) > 1 else ""
        super().__init__(f"{kind}: unknown field{plural} {names} (valid fields: {self.hint})")

    @property
    def hint(self) -> str:
        return ", ".join(self.valid) or "none"


def check_fields(args: Mapping[str, Any], *, kind: str, allowed: Collection[str]) -> None:
    """Reject unknown fields, every one of them at once (kube-scheduler decodes plugin args
    strictly)."""
    unknown = sorted(str(key) for key in args if key not in allowed)
    if unknown:
        raise UnknownFieldsError(kind, unknown, allowed)


def no_args(args: Mapping[str, Any], *, plugin: str) -> None:
    """For plugins without args: any pluginConfig args are a mistake."""
    if args:
        raise ArgsError(f"plugin {plugin} takes no args, got: {', '.join(sorted(args))}")


def mapping(value: Any, *, path: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgsError(f"{path}: expected an object, got {type(value).__name__}")
    return value


def sequence(value: Any, *, path: str) -> Sequence[Any]:
    if value is None:
        return ()
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise ArgsError(f"{path}: expected a list, got {type(value).__name__}")
    return value


def string_list(value: Any, *, path: str) -> list[str]:
    items = sequence(value, path=path)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise ArgsError(f"{path}[{i}]: expected a string, got {type(item).__name__}")
    return list(items)


def integer(value: Any, *, path: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ArgsError(f"{path}: expected an integer, got {value!r}")
    if not low <= value <= high:
        raise ArgsError(f"{path}: Invalid value: {value}: not in valid range [{low}, {high}]")
    return value


DEFAULT_RESOURCES: tuple[tuple[str, int], ...] = (("cpu", 1), ("memory", 1))
"""Upstream's default `resources` of the resource scorers: cpu and memory, weight 1 each."""


def resource_specs(value: Any, *, path: str) -> tuple[tuple[str, int], ...]:
    """`[{name: cpu, weight: 1}, ...]` -> ((name, weight), ...); empty -> the defaults.

    A missing or zero weight means 1 (upstream defaulting); each plugin validates the weights
    (NodeResourcesFit: 1..100, NodeResourcesBalancedAllocation: 1).
    """
    specs = []
    for i, item in enumerate(sequence(value, path=path)):
        spec = mapping(item, path=f"{path}[{i}]")
        check_fields(spec, kind=f"{path}[{i}]", allowed=("name", "weight"))
        name = spec.get("name")
        if not isinstance(name, str) or not name:
            raise ArgsError(f"{path}[{i}].name: a resource name is required")
        weight = spec.get("weight") or 1
        specs.append(
            (name, integer(weight, path=f"{path}[{i}].weight", low=-(2**31), high=2**31 - 1))
        )
    return tuple(specs) or DEFAULT_RESOURCES


def sorted_keys(value: Any) -> Any:
    """A JSON-like value with every mapping's keys sorted, as kube-scheduler writes YAML."""
    if isinstance(value, Mapping):
        return {key: sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list | tuple):
        return [sorted_keys(item) for item in value]
    return value


def resource_specs_to_v1(specs: Sequence[tuple[str, int]]) -> list[dict[str, Any]]:
    """((name, weight), ...) -> `[{name: cpu, weight: 1}, ...]`."""
    return [{"name": name, "weight": weight} for name, weight in specs]
