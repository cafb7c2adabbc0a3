"""The in-tree plugins' args checked with the config file, as kube-scheduler v1.37.2 checks
them: decoded strictly first (an unknown field refuses the file alone, `strict decoding
error: ...`), then validated with the rest of the file (`validatePluginConfig`: the args of
DefaultPreemption, InterPodAffinity, NodeAffinity, NodeResourcesBalancedAllocation,
PodTopologySpread, VolumeBinding and DynamicResources), each error at its place in the file.

Loading the file (`kubesched.config.load_config`) takes these checks as a parameter:
`kubesched manifests` and `explain` read configs without importing the plugins.

    load_config(argv, args_checks=IN_TREE_ARGS)
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from kubesched.apis.config import Profile
from kubesched.config.decode import json_kind
from kubesched.config.errors import Problem
from kubesched.plugins.helper.args import ArgsError, UnknownFieldsError
from kubesched.plugins.plugin_args import PLUGIN_ARGS


class InTreeArgsChecks:
    """`kubesched.config.profiles.ArgsChecks` for the in-tree plugins' typed args."""

    def decoding_error(self, profiles: Iterable[Profile]) -> str | None:
        """kube-scheduler's strict-decoding error for the first unknown field in a plugin's
        args (it decodes the file, args included, before it validates anything), or None."""
        for position, profile in enumerate(profiles):
            for index, (name, args) in enumerate(profile.plugin_config.items()):
                if name not in PLUGIN_ARGS:
                    continue
                mistyped = _mistyped(name, args)
                if mistyped is not None:
                    where = f".profiles[{position}].pluginConfig[{index}]"
                    return Problem(
                        f"decoding {where}: decoding args for plugin {name}: {mistyped}",
                        f"{where.removeprefix('.')}.args: the field's value has the wrong type",
                    )
                try:
                    PLUGIN_ARGS[name].from_v1(args)
                except UnknownFieldsError as error:
                    found = decoding_message(error, profile.plugin_config, position=position)
                    if found is not None:
                        return found
                except ArgsError:
                    continue
        return None

    def errors(self, name: str, args: Mapping[str, Any], *, path: str) -> list[str]:
        """The plugin's args errors at their place in the file (`<Plugin>Args.x` ->
        `path.x`); several make one item whose text is their aggregate's inside, which reads
        as upstream's flattened aggregate."""
        if name not in PLUGIN_ARGS:
            return []
        try:
            PLUGIN_ARGS[name].from_v1(args)
        except UnknownFieldsError:
            return []  # a decoding error: reported alone, before any of these
        except ArgsError as error:
            return _at(str(error), kind=f"{name}Args.", path=path)
        return []


IN_TREE_ARGS = InTreeArgsChecks()


_INT64_FIELDS = frozenset({("VolumeBinding", "bindTimeoutSeconds")})


def _mistyped(name: str, args: Mapping[str, Any]) -> str | None:
    """Go's JSON decoder's error for the first whole-number or boolean field of the args
    given a value of another JSON type, as kube-scheduler decodes them; None if none."""
    for field, default in PLUGIN_ARGS[name].default().to_v1().items():
        value = args.get(field)
        if value is None:
            continue
        if isinstance(default, bool):
            go_type = "bool" if not isinstance(value, bool) else ""
        elif isinstance(default, int):
            whole = isinstance(value, int) and not isinstance(value, bool)
            go_type = "" if whole else ("int64" if (name, field) in _INT64_FIELDS else "int32")
        else:
            continue
        if go_type:
            return (
                f"json: cannot unmarshal {json_kind(value)} into Go struct field "
                f"{name}Args.{field} of type {go_type}"
            )
    return None


def _at(text: str, *, kind: str, path: str) -> list[str]:
    """An args error (`<Plugin>Args.x: ...`, or their aggregate `[<Plugin>Args.x: ...,
    <Plugin>Args.y: ...]`) as the errors it holds, each at its place in the file."""
    if text.startswith(f"[{kind}") and text.endswith("]"):
        parts = re.split(rf", (?={re.escape(kind)})", text[1:-1])
    else:
        parts = [text]
    return [part.replace(kind, f"{path}.", 1) for part in parts]


def decoding_message(
    error: UnknownFieldsError, names: Iterable[str], *, position: int
) -> Problem | None:
    """kube-scheduler's strict-decoding text for unknown fields in a plugin's args (its file
    is decoded before anything is validated), the valid fields as the hint."""
    for index, name in enumerate(names):
        root = f"{name}Args"
        if error.kind == root or error.kind.startswith((f"{root}.", f"{root}[")):
            below = error.kind.removeprefix(root).removeprefix(".")
            fields = ", ".join(
                f'unknown field "{below}.{field}"' if below else f'unknown field "{field}"'
                for field in error.fields
            )
            return Problem(
                f"strict decoding error: decoding .profiles[{position}].pluginConfig[{index}]: "
                f"strict decoding error: decoding args for plugin {name}: strict decoding error: "
                f"{fields}",
                f"valid fields{f' of {below}' if below else ''}: {error.hint}",
            )
    return None
