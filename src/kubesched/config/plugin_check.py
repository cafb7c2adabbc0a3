"""The profiles' plugins checked without a cluster, as kube-scheduler checks them before
`--write-config-to` writes anything: every `--plugin-module` imported, then every profile's
framework built (defaults merged, each plugin made with its args, multiPoint expanded) over
an empty cluster (`kubesched.runtime.offline.OfflineHandle`, never the tests' fake).

    check_plugins(config)   # raises ConfigError, one line per problem

`kubesched run`, `kubesched --write-config-to` and `kubesched manifests` (YAML and
`--helm-chart`) call it, so what one refuses the others refuse. The checks are the
scheduler's own (`kubesched.framework.build_framework`, each plugin's args parsing and
`check_common_queue_sort`); this module only runs them offline and words plugin-args errors
with kube-scheduler's field paths:

* the args kube-scheduler validates with the config file (`validatePluginConfig`) are named
  by their place in the file, `profiles[0].pluginConfig[1].args.hardPodAffinityWeight:
  Invalid value: 101: not in valid range [0, 100]`;
* the others (NodeResourcesFit: v1.37.2's validation table lists it as
  "NodeResourcesFitArgs", so only building the plugin validates it) as its framework words
  them, `initializing plugin "NodeResourcesFit": scoringStrategy.type: Unsupported value:
  ...`, followed by their place in the file;
* several errors of one plugin's args make one line, `[a, b]`, as kube-scheduler's error
  aggregate lists them (`kubesched.plugins.helper.fielderrors`).
"""

from __future__ import annotations

from collections.abc import Iterable

from kubesched.apis.config import KubeSchedulerConfiguration, Profile
from kubesched.config.errors import ConfigError
from kubesched.framework import PluginRegistrationError, Registry
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import declared_resources
from kubesched.plugins import config_registry
from kubesched.plugins.helper.args import ArgsError, UnknownFieldsError
from kubesched.runtime import Framework, FrameworkError, build_framework, check_common_queue_sort
from kubesched.runtime.offline import OfflineHandle

# kube-scheduler v1.37.2's `validatePluginConfig` table (pkg/scheduler/apis/config/validation).
_VALIDATED_WITH_THE_FILE = frozenset(
    {
        "DefaultPreemption",
        "InterPodAffinity",
        "NodeAffinity",
        "NodeResourcesBalancedAllocation",
        "PodTopologySpread",
        "VolumeBinding",
        "DynamicResources",
    }
)
_IMPORT_HINT = "make it importable here: pip install its package, or add its folder to PYTHONPATH"


def check_plugins(config: KubeSchedulerConfiguration) -> None:
    """Raise ConfigError with every plugin problem of `config` (none: it returns)."""
    errors = plugin_errors(config)
    if errors:
        raise ConfigError(errors)


def plugin_errors(config: KubeSchedulerConfiguration) -> list[str]:
    """Every plugin problem of `config`, one line each: a plugin module that cannot be
    loaded, else each profile whose framework cannot be built, else differing queue sorts."""
    try:
        registry = config_registry(config.plugin_modules)
    except PluginRegistrationError as error:
        return [_registration_message(error)]
    frameworks: list[Framework] = []
    errors: list[str] = []
    for position, profile in enumerate(config.profiles):
        try:
            frameworks.append(_build(profile, registry=registry))
        except FrameworkError as error:
            errors.append(_framework_message(error, profile=profile, position=position))
    if errors:
        return errors
    try:
        check_common_queue_sort(frameworks)
    except FrameworkError as error:
        return [str(error)]
    return []


def _build(profile: Profile, *, registry: Registry) -> Framework:
    """The profile's framework over an empty cluster (listers for what its plugins read)."""
    handle = OfflineHandle(ClusterListers(declared_resources([profile], registry)))
    return build_framework(profile=profile, registry=registry, handle=handle)


def _registration_message(error: PluginRegistrationError) -> str:
    if isinstance(error.__cause__, ImportError):
        return f"{error}; {_IMPORT_HINT}"
    return str(error)


def _framework_message(error: FrameworkError, *, profile: Profile, position: int) -> str:
    """The builder's message, or for plugin args kube-scheduler's wording and field path."""
    cause = error.__cause__
    if isinstance(cause, UnknownFieldsError):
        decoding = _decoding_message(cause, profile.plugin_config, position=position)
        if decoding is not None:
            return f"profile {profile.scheduler_name!r}: {decoding}"
    found = _args_field(str(cause), profile.plugin_config) if isinstance(cause, ArgsError) else None
    if found is None:
        return str(error)
    index, name = found
    path = f"profiles[{position}].pluginConfig[{index}].args"
    prefix = f"{name}Args."
    if name in _VALIDATED_WITH_THE_FILE:
        text = str(cause).replace(prefix, f"{path}.")
    else:
        text = f'initializing plugin "{name}": {str(cause).replace(prefix, "")} (at {path})'
    return f"profile {profile.scheduler_name!r}: {text}"


def _decoding_message(
    error: UnknownFieldsError, names: Iterable[str], *, position: int
) -> str | None:
    """kube-scheduler's strict-decoding text for unknown fields in a plugin's args (its file
    is decoded before anything is validated), with the valid fields as a hint."""
    for index, name in enumerate(names):
        root = f"{name}Args"
        if error.kind == root or error.kind.startswith((f"{root}.", f"{root}[")):
            below = error.kind.removeprefix(root).removeprefix(".")
            fields = ", ".join(
                f'unknown field "{below}.{field}"' if below else f'unknown field "{field}"'
                for field in error.fields
            )
            return (
                f"strict decoding error: decoding .profiles[{position}].pluginConfig[{index}]: "
                f"strict decoding error: decoding args for plugin {name}: strict decoding error: "
                f"{fields} (valid fields{f' of {below}' if below else ''}: {error.hint})"
            )
    return None


def _args_field(message: str, names: Iterable[str]) -> tuple[int, str] | None:
    """(position in pluginConfig, plugin) of an args error worded `<Plugin>Args.<field>:
    <problem>`, or an aggregate of such errors `[<Plugin>Args.<field>: ..., ...]`
    (`kubesched.plugins.helper.args`, `.fielderrors`); None otherwise."""
    for index, name in enumerate(names):
        prefix = f"{name}Args."
        if message.startswith((prefix, f"[{prefix}")):
            return index, name
    return None
