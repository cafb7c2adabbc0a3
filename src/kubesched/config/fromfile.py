"""The `--config` file: a `KubeSchedulerConfiguration` (kubescheduler.config.k8s.io/v1),
strictly decoded and defaulted as kube-scheduler's v1 defaulting does.

Defaults (upstream `SetDefaults_KubeSchedulerConfiguration` and component-base's
`RecommendedDefaultLeaderElectionConfiguration`): parallelism 16; percentageOfNodesToScore
unset (adaptive); backoff 1 s / 10 s; leader election on with 15 s / 10 s / 2 s (a zero
duration also means the default) and `leases`; qps 50 and burst 100 (0 means the default);
no profiles means one profile; a single profile without a schedulerName gets kubesched's
default name. Unlike upstream, an empty Lease name and namespace stay empty here: completing
the config fills them (first profile's name; the pod's namespace or kube-system).
"""

from __future__ import annotations

from typing import Any, TypeVar

from kubesched.apis.config import (
    DEFAULT_SCHEDULER_NAME,
    EXTENSION_POINTS,
    PLACEMENT_POINTS,
    WORKLOAD_EXTENSION_POINTS,
    ClientConnection,
    KubeSchedulerConfiguration,
    LeaderElection,
    PluginRef,
    PluginSet,
    Profile,
)
from kubesched.apis.gotext import go_quote
from kubesched.config.decode import Decoder, child, index
from kubesched.config.errors import Problem
from kubesched.config.extenders import decode_extenders

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
_TOP = (
    "apiVersion",
    "kind",
    "parallelism",
    "leaderElection",
    "clientConnection",
    "enableProfiling",
    "enableContentionProfiling",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
    "extenders",
    "delayCacheUntilActive",
)
_TOP_HINTS = {
    "schedulerName": "unknown field; a scheduler name belongs to a profile: "
    "profiles: [{schedulerName: my-scheduler}]",
}
_LEADER = (
    "leaderElect",
    "enabled",
    "leaseDuration",
    "renewDeadline",
    "retryPeriod",
    "resourceLock",
    "resourceName",
    "resourceNamespace",
)
_CLIENT = ("kubeconfig", "acceptContentTypes", "contentType", "qps", "burst")
_T = TypeVar("_T")
_GROUP = "kubescheduler.config.k8s.io"
_GO = "KubeSchedulerConfiguration"  # the Go struct of the top-level fields
_PROFILE = ("schedulerName", "percentageOfNodesToScore", "plugins", "pluginConfig")


def decode_file(document: object, *, source: str) -> tuple[KubeSchedulerConfiguration, Decoder]:
    """The defaulted configuration in a parsed YAML document, with the Decoder that holds
    every decoding error and notice (the config is only meaningful without errors)."""
    decoder = Decoder(source=source)
    top = decoder.fields(document, path="", allowed=_TOP, hints=_TOP_HINTS)
    if not _type_meta_ok(decoder, document, top):
        return KubeSchedulerConfiguration(), decoder
    _ignored_fields(decoder, top)
    config = KubeSchedulerConfiguration(
        profiles=_profiles(decoder, top.get("profiles")),
        leader_election=_leader_election(decoder, top.get("leaderElection")),
        client_connection=_client_connection(decoder, top.get("clientConnection")),
        parallelism=_or(decoder.integer(top.get("parallelism"), path="parallelism", go=_GO), 16),
        percentage_of_nodes_to_score=decoder.integer(
            top.get("percentageOfNodesToScore"), path="percentageOfNodesToScore", go=_GO
        ),
        pod_initial_backoff_seconds=_seconds(decoder, top, "podInitialBackoffSeconds", 1),
        pod_max_backoff_seconds=_seconds(decoder, top, "podMaxBackoffSeconds", 10),
        extenders=decode_extenders(decoder, top.get("extenders")),
        delay_cache_until_active=_or(
            decoder.boolean(top.get("delayCacheUntilActive"), path="delayCacheUntilActive"),
            False,  # noqa: FBT003 - the default value
        ),
    )
    return config, decoder


def _or(value: _T | None, default: _T) -> _T:
    return default if value is None else value


def _type_meta_ok(decoder: Decoder, document: object, top: dict[str, Any]) -> bool:
    if document is None:
        decoder.error("(top level)", f"empty; it needs apiVersion: {API_VERSION} and kind: {KIND}")
        return False
    if not isinstance(document, dict):
        return False  # already reported
    api_version = decoder.string(top.get("apiVersion"), path="apiVersion")
    kind = decoder.string(top.get("kind"), path="kind")
    if api_version and kind and (api_version, kind) != (API_VERSION, KIND):
        decoder.errors.append(  # kube-scheduler's scheme has no such type
            Problem(
                f"no kind {go_quote(kind)} is registered for version {go_quote(api_version)} in "
                'scheme "pkg/runtime/scheme.go:111"',
                f"{decoder.source}: kubesched reads apiVersion: {API_VERSION}, kind: {KIND}",
            )
        )
        return False
    if api_version != API_VERSION:
        found = "missing" if api_version is None else f"{api_version!r} is not supported"
        decoder.error("apiVersion", f"{found}; kubesched reads apiVersion: {API_VERSION}")
    if kind != KIND:
        found = "missing" if kind is None else f"{kind!r} is not supported"
        decoder.error("kind", f"{found}; kubesched reads kind: {KIND}")
    return api_version == API_VERSION and kind == KIND


def _ignored_fields(decoder: Decoder, top: dict[str, Any]) -> None:
    for name in ("enableProfiling", "enableContentionProfiling"):
        if decoder.boolean(top.get(name), path=name):
            decoder.notice(name, "has no effect: kubesched serves no /debug/pprof endpoints")


def _seconds(decoder: Decoder, top: dict[str, Any], name: str, default: int) -> float:
    return float(_or(decoder.integer(top.get(name), path=name, bits=64, go=_GO), default))


def _profiles(decoder: Decoder, value: object) -> tuple[Profile, ...]:
    go = ("KubeSchedulerConfiguration.profiles", "[]v1.KubeSchedulerProfile")
    items = decoder.items(value, path="profiles", go=go)
    if not items:
        return (Profile(),)
    single = len(items) == 1
    return tuple(
        _profile(decoder, item, path=index("profiles", position), single=single)
        for position, item in enumerate(items)
    )


def _profile(decoder: Decoder, value: object, *, path: str, single: bool) -> Profile:
    fields = decoder.fields(value, path=path, allowed=_PROFILE)
    name = decoder.string(fields.get("schedulerName"), path=child(path, "schedulerName"))
    if name is None:  # only a lone profile gets the default name, as upstream
        name = DEFAULT_SCHEDULER_NAME if single else ""
    percentage_path = child(path, "percentageOfNodesToScore")
    return Profile(
        scheduler_name=name,
        plugins=_plugins(decoder, fields.get("plugins"), path=child(path, "plugins")),
        plugin_config=_plugin_config(
            decoder, fields.get("pluginConfig"), path=child(path, "pluginConfig")
        ),
        percentage_of_nodes_to_score=decoder.integer(
            fields.get("percentageOfNodesToScore"), path=percentage_path
        ),
    )


def _plugins(decoder: Decoder, value: object, *, path: str) -> dict[str, PluginSet]:
    allowed = (*EXTENSION_POINTS, *WORKLOAD_EXTENSION_POINTS)
    points = decoder.fields(value, path=path, allowed=allowed)
    sets = {
        point: _plugin_set(decoder, item, path=child(path, point)) for point, item in points.items()
    }
    for point in WORKLOAD_EXTENSION_POINTS:
        if point in PLACEMENT_POINTS:
            continue
        workload = sets.pop(point, None)
        if workload is not None and workload.enabled:
            decoder.error(
                child(path, point),
                "kubesched has no such extension point (kube-scheduler's workload-aware "
                "scheduling); remove the plugins enabled there",
            )
    return sets


def _plugin_set(decoder: Decoder, value: object, *, path: str) -> PluginSet:
    fields = decoder.fields(value, path=path, allowed=("enabled", "disabled"))
    return PluginSet(
        enabled=_plugin_refs(decoder, fields.get("enabled"), path=child(path, "enabled")),
        disabled=_plugin_refs(decoder, fields.get("disabled"), path=child(path, "disabled")),
    )


def _plugin_refs(decoder: Decoder, value: object, *, path: str) -> tuple[PluginRef, ...]:
    refs: list[PluginRef] = []
    for position, item in enumerate(decoder.items(value, path=path)):
        item_path = index(path, position)
        fields, name = _named_item(
            decoder, item, item_path, ("name", "weight"), "required: the name of a plugin"
        )
        weight = decoder.integer(fields.get("weight"), path=child(item_path, "weight"))
        if name:
            refs.append(PluginRef(name=name, weight=weight))
    return tuple(refs)


def _named_item(
    decoder: Decoder, item: object, path: str, allowed: tuple[str, ...], required: str
) -> tuple[dict[str, Any], str | None]:
    """A list item's fields (only `allowed`) and its `name`; `required` is the error when
    the name is missing and nothing else was reported about it."""
    reported = len(decoder.errors)
    fields = decoder.fields(item, path=path, allowed=allowed)
    name = decoder.string(fields.get("name"), path=child(path, "name"))
    if not name and len(decoder.errors) == reported:
        decoder.error(child(path, "name"), required)
    return fields, name


def _plugin_config(decoder: Decoder, value: object, *, path: str) -> dict[str, dict[str, Any]]:
    configs: dict[str, dict[str, Any]] = {}
    first_seen: dict[str, str] = {}
    for position, item in enumerate(decoder.items(value, path=path)):
        item_path = index(path, position)
        fields, name = _named_item(
            decoder, item, item_path, ("name", "args"), "required: the plugin these args are for"
        )
        args = decoder.json_object(fields.get("args"), path=child(item_path, "args"))
        if not name:
            continue
        if name in first_seen:  # kube-scheduler's field.Duplicate, at the same path
            decoder.errors.append(
                Problem(
                    f"{item_path}: Duplicate value: {go_quote(name)}",
                    f"{decoder.source}: also {first_seen[name]}; keep one entry per plugin",
                )
            )
        else:
            first_seen[name] = item_path
            configs[name] = _args_body(
                decoder, args or {}, name=name, path=child(item_path, "args")
            )
    return configs


def _args_body(decoder: Decoder, args: dict[str, Any], *, name: str, path: str) -> dict[str, Any]:
    """The args without their type fields: kube-scheduler's files often carry
    `apiVersion: kubescheduler.config.k8s.io/v1` and `kind: <Plugin>Args`; both must then be
    those (upstream decodes the args as that type)."""
    api_version, kind = args.get("apiVersion"), args.get("kind")
    if api_version is not None and api_version != API_VERSION:
        decoder.error(child(path, "apiVersion"), f"{api_version!r}; plugin args use {API_VERSION}")
    if kind is not None and kind != f"{name}Args":
        decoder.errors.append(
            Problem(
                f"decoding .{path.removesuffix('.args')}: args for plugin {name} were not of "
                f"type {name}Args.{_GROUP}, got {kind}.{_GROUP}",
                f"{decoder.source}: {child(path, 'kind')}: the args of {name} are kind {name}Args",
            )
        )
    return {key: value for key, value in args.items() if key not in ("apiVersion", "kind")}


def _leader_election(decoder: Decoder, value: object) -> LeaderElection:
    path = "leaderElection"
    fields = decoder.fields(value, path=path, allowed=_LEADER)
    default = LeaderElection()

    def text(name: str) -> str:
        return decoder.string(fields.get(name), path=child(path, name)) or ""

    def duration(name: str, fallback: float) -> float:
        return decoder.duration(fields.get(name), path=child(path, name)) or fallback

    return LeaderElection(
        leader_elect=_leader_elect(decoder, fields, path=path),
        lease_duration=duration("leaseDuration", default.lease_duration),
        renew_deadline=duration("renewDeadline", default.renew_deadline),
        retry_period=duration("retryPeriod", default.retry_period),
        resource_lock=text("resourceLock") or default.resource_lock,
        resource_name=text("resourceName"),
        resource_namespace=text("resourceNamespace"),
    )


def _leader_elect(decoder: Decoder, fields: dict[str, Any], *, path: str) -> bool:
    elect = decoder.boolean(fields.get("leaderElect"), path=child(path, "leaderElect"))
    alias = decoder.boolean(fields.get("enabled"), path=child(path, "enabled"))
    if "enabled" in fields:
        decoder.notice(
            child(path, "enabled"), "read as leaderElect (kube-scheduler's name for it); rename it"
        )
    if elect is not None and alias is not None and elect != alias:
        decoder.error(child(path, "enabled"), "contradicts leaderElect; keep only leaderElect")
    return _or(elect, _or(alias, True))  # noqa: FBT003 - the default value


def _client_connection(decoder: Decoder, value: object) -> ClientConnection:
    path = "clientConnection"
    fields = decoder.fields(value, path=path, allowed=_CLIENT)
    default = ClientConnection()

    def text(name: str) -> str:
        return decoder.string(fields.get(name), path=child(path, name)) or ""

    return ClientConnection(
        kubeconfig=text("kubeconfig"),
        qps=decoder.number(fields.get("qps"), path=child(path, "qps")) or default.qps,
        burst=decoder.integer(fields.get("burst"), path=child(path, "burst")) or default.burst,
        content_type=text("contentType") or default.content_type,
        accept_content_types=text("acceptContentTypes"),
    )
