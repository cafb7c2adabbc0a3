"""The profiles' plugins checked without a cluster, as kube-scheduler checks them before
`--write-config-to` writes anything: every `--plugin-module` imported, then every profile's
framework built (defaults merged, each plugin made with its args, multiPoint expanded) over
an empty cluster (`kubesched.runtime.offline.OfflineHandle`, never the tests' fake).

    checked = check_plugins(config)   # raises ConfigError with every problem
    config, notices = checked.config, checked.notices

`kubesched run`, `kubesched --write-config-to` and `kubesched manifests` (YAML and
`--helm-chart`) call it, so what one refuses the others refuse. The checks are the
scheduler's own (`kubesched.runtime.build_framework`, each plugin's args parsing); this
module runs them offline and words their errors as kube-scheduler v1.37.2 does:

* a profile that cannot be built: `initializing profiles: creating profile for scheduler
  name NAME: <the framework's error>` (kube-scheduler stops at the first such profile;
  kubesched lists each profile's, aggregated);
* args kube-scheduler only checks when it builds the plugin (NodeResourcesFit: v1.37.2's
  validation table lists it as "NodeResourcesFitArgs") as `initializing plugin
  "NodeResourcesFit": scoringStrategy.type: Unsupported value: ...`, their place in the file
  as the hint; the args it validates with the file are refused before
  (`kubesched.config.profiles`);
* a `pluginConfig` for a plugin that does not exist is dropped with a notice: kube-scheduler
  reads only the args of the plugins it builds and ignores the rest.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable

from kubesched.apis.config import KubeSchedulerConfiguration, Profile
from kubesched.apis.gotext import go_quote
from kubesched.config.args_check import decoding_message
from kubesched.config.errors import ConfigError, Problem
from kubesched.config.profiles import VALIDATED_WITH_THE_FILE
from kubesched.framework import PluginRegistrationError, Registry
from kubesched.framework.listers import ClusterListers
from kubesched.framework.resources import declared_resources
from kubesched.plugins import config_registry
from kubesched.plugins.helper.args import ArgsError, UnknownFieldsError
from kubesched.runtime import Framework, FrameworkError, build_framework
from kubesched.runtime.offline import OfflineHandle

_IMPORT_HINT = "make it importable here: pip install its package, or add its folder to PYTHONPATH"


@dataclasses.dataclass(frozen=True, slots=True)
class PluginCheck:
    """A config whose plugins build: `config` without the `pluginConfig` of plugins that do
    not exist (kube-scheduler ignores them, so the effective config has none), and a notice
    for each of those."""

    config: KubeSchedulerConfiguration
    notices: tuple[str, ...] = ()


def check_plugins(config: KubeSchedulerConfiguration) -> PluginCheck:
    """The config ready to run; raises ConfigError with every plugin problem of `config`."""
    try:
        registry = config_registry(config.plugin_modules)
    except PluginRegistrationError as error:
        raise ConfigError([_registration_message(error)]) from error
    pruned, notices = _without_unknown_plugin_config(config, registry)
    errors = _build_errors(pruned, registry)
    if errors:  # one line: the notices about ignored args would only add noise
        raise ConfigError(errors)
    return PluginCheck(config=pruned, notices=tuple(notices))


def plugin_errors(config: KubeSchedulerConfiguration) -> list[str]:
    """Every plugin problem of `config`, one line each: a plugin module that cannot be
    loaded, else each profile whose framework cannot be built, else differing queue sorts."""
    try:
        check_plugins(config)
    except ConfigError as error:
        return list(error.errors)
    return []


def _without_unknown_plugin_config(
    config: KubeSchedulerConfiguration, registry: Registry
) -> tuple[KubeSchedulerConfiguration, list[str]]:
    notices: list[str] = []
    profiles: list[Profile] = []
    for position, profile in enumerate(config.profiles):
        known = {name: args for name, args in profile.plugin_config.items() if name in registry}
        for index, name in enumerate(profile.plugin_config):
            if name not in known:
                notices.append(_unknown_plugin_notice(name, registry, position, index))
        profiles.append(dataclasses.replace(profile, plugin_config=known))
    return dataclasses.replace(config, profiles=tuple(profiles)), notices


def _unknown_plugin_notice(name: str, registry: Registry, position: int, index: int) -> str:
    close = difflib.get_close_matches(name, registry.names(), n=1)
    guess = f"; did you mean {close[0]}?" if close else ""
    return (
        f"profiles[{position}].pluginConfig[{index}]: plugin {name!r} does not exist, so its "
        f"args are ignored (as kube-scheduler ignores them){guess}"
    )


def _build_errors(config: KubeSchedulerConfiguration, registry: Registry) -> list[str]:
    """Each profile's first error as kube-scheduler words it, then differing queue sorts."""
    frameworks: list[Framework] = []
    errors: list[str] = []
    for position, profile in enumerate(config.profiles):
        try:
            frameworks.append(_build(profile, registry=registry))
        except FrameworkError as error:
            errors.append(_framework_message(error, profile=profile, position=position))
    if errors:
        return errors
    return _common_queue_sort(frameworks)


def _common_queue_sort(frameworks: list[Framework]) -> list[str]:
    """kube-scheduler's profile map check: every profile sorts the one queue the same way."""
    first = frameworks[0].plugins.queue_sort[0].name if frameworks else ""
    for framework in frameworks[1:]:
        mine = framework.plugins.queue_sort[0].name
        if mine != first:
            return [
                Problem(
                    "initializing profiles: different queue sort plugins for profile "
                    f"{go_quote(framework.profile_name)}: {go_quote(mine)}, first: "
                    f"{go_quote(first)}",
                    "one scheduling queue serves every profile, sorted by one plugin",
                )
            ]
    return []


def _build(profile: Profile, *, registry: Registry) -> Framework:
    """The profile's framework over an empty cluster (listers for what its plugins read)."""
    handle = OfflineHandle(ClusterListers(declared_resources([profile], registry)))
    return build_framework(profile=profile, registry=registry, handle=handle)


def _registration_message(error: PluginRegistrationError) -> str:
    if isinstance(error.__cause__, ImportError):
        return f"{error}; {_IMPORT_HINT}"
    return str(error)


def _framework_message(error: FrameworkError, *, profile: Profile, position: int) -> Problem:
    """kube-scheduler's error for a profile it cannot build (`initializing profiles: creating
    profile for scheduler name NAME: ...`), the builder's extra words as the hint."""
    name = profile.scheduler_name
    wrapper = f"initializing profiles: creating profile for scheduler name {name}: "
    cause = error.__cause__
    if isinstance(cause, UnknownFieldsError):
        decoding = decoding_message(cause, profile.plugin_config, position=position)
        if decoding is not None:
            return decoding
    found = _args_field(str(cause), profile.plugin_config) if isinstance(cause, ArgsError) else None
    if found is None:
        return _builder_problem(str(error).removeprefix(f"profile {name!r}: "), wrapper, name)
    index, plugin = found
    path = f"profiles[{position}].pluginConfig[{index}].args"
    prefix = f"{plugin}Args."
    if plugin in VALIDATED_WITH_THE_FILE:
        return Problem(str(cause).replace(prefix, f"{path}."))
    text = str(cause).replace(prefix, "")
    return Problem(
        f'{wrapper}initializing plugin "{plugin}": {text}', f"at {path}", subject=f"profile {name}"
    )


_QUEUE_SORTS = re.compile(r"exactly one queueSort plugin is required, got (\d+)")
_INITIALIZING = re.compile(
    r"initializing plugin '(?P<plugin>[^']+)' \((?P<where>enabled at [A-Za-z]+)\): (?P<error>.*)"
)
_EXTRA = re.compile(r"(?P<exact>.*?)(?: \((?P<where>enabled at [A-Za-z]+)\))?(?:; (?P<hint>.*))?$")


def _builder_problem(message: str, wrapper: str, name: str) -> Problem:
    """The builder's message in kube-scheduler's words (its hints apart)."""
    quoted = go_quote(name)
    counted = _QUEUE_SORTS.fullmatch(message)
    if counted is not None:
        return Problem(
            f"{wrapper}only one queue sort plugin required for profile with scheduler name "
            f"{quoted}, but got {counted[1]}",
            "enable exactly one queueSort plugin; disable the others",
            subject=f"profile {name}",
        )
    if message == "at least one bind plugin is required":
        return Problem(
            f"{wrapper}at least one bind plugin is needed for profile with scheduler name {quoted}",
            "enable DefaultBinder or another bind plugin",
            subject=f"profile {name}",
        )
    initializing = _INITIALIZING.fullmatch(message)
    if initializing is not None:
        return Problem(
            f"{wrapper}initializing plugin {go_quote(initializing['plugin'])}: "
            f"{initializing['error']}",
            initializing["where"],
            subject=f"profile {name}",
        )
    parts = _EXTRA.fullmatch(message)
    assert parts is not None  # the pattern matches any one-line text
    hints = [parts[group] for group in ("where", "hint") if parts[group]]
    return Problem(f"{wrapper}{parts['exact']}", "; ".join(hints), subject=f"profile {name}")


def _args_field(message: str, names: Iterable[str]) -> tuple[int, str] | None:
    """(position in pluginConfig, plugin) of an args error worded `<Plugin>Args.<field>:
    <problem>`, or an aggregate of such errors `[<Plugin>Args.<field>: ..., ...]`
    (`kubesched.plugins.helper.args`, `.fielderrors`); None otherwise."""
    for index, name in enumerate(names):
        prefix = f"{name}Args."
        if message.startswith((prefix, f"[{prefix}")):
            return index, name
    return None
