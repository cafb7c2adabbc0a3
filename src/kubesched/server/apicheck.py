"""Start-up check of the API server: its version (`/version`) and what it serves (discovery),
against what the profiles read; done before anything is built.

kube-scheduler v1.37.2 always runs its DRA informers (the DynamicResourceAllocation gate is
locked on since 1.35, and the informers are started whatever the profiles enable): against
an API server that does not serve `resource.k8s.io/v1` it logs "Failed to watch ...
ResourceSlice ... could not find the requested resource" forever, never syncs its caches,
never takes its Lease and schedules no pod at all (observed with kube-apiserver
`--runtime-config=resource.k8s.io/v1=false`; kube-scheduler's skew policy does not support an
API server older than itself). kubesched instead keeps every other pod scheduled and says
what it cannot do there, once, at start-up:

* `resource.k8s.io/v1` not served (Kubernetes before 1.34, or switched off): DynamicResources
  is disabled in the profiles that enable it, the DRA informers are not run (the
  DeviceClasses NodeResourcesFit and BalancedAllocation read are none), and pods that
  reference ResourceClaims are held in the queue (gated by DynamicResources) instead of being
  placed without their devices;
* `devicetaintrules.resource.k8s.io/v1` not served (Kubernetes 1.34 to 1.36): the rules are
  not read; device taints come from the ResourceSlices alone, as with kube-scheduler 1.34 to
  1.36 (DRADeviceTaintRules off);
* any other resource a plugin reads and the API server does not serve (a CRD not installed):
  refused with one line naming the plugin, the resource and the fix, instead of waiting for
  caches that never sync;
* an API server older than 1.34 or newer than the skew policy allows: one warning line.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from kubesched.apis.config import (
    MULTI_POINT,
    KubeSchedulerConfiguration,
    PluginRef,
    PluginSet,
    Profile,
)
from kubesched.apis.names import DYNAMIC_RESOURCES
from kubesched.apis.resources import ResourceSpec
from kubesched.apis.support import MINIMUM_MINOR, ServerVersion
from kubesched.errors import FatalError
from kubesched.framework.dra import DEVICE_TAINT_RULES, GROUP, VERSION
from kubesched.framework.logkv import kv
from kubesched.framework.registry import Registry
from kubesched.framework.resources import cluster_resources, enabled_plugin_names, plugin_resources
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, ConnectionFailed, NotFound, Unauthorized
from kubesched.model import Pod
from kubesched.plugins import config_registry
from kubesched.server.served import unserved_problem

log = logging.getLogger(__name__)

DRA = f"{GROUP}/{VERSION}"
Key = tuple[str, str, str]


class StartupError(FatalError):
    """The API server cannot serve this configuration; the message is one line naming the fix."""


@dataclass(frozen=True)
class ApiSupport:
    """What the API server serves, and the configuration adapted to it."""

    config: KubeSchedulerConfiguration
    """The configuration to build: DynamicResources disabled where DRA is not served."""
    version: ServerVersion
    unserved: frozenset[Key] = frozenset()
    """Declared resources the API server does not serve: no informer, an empty lister."""
    notices: tuple[str, ...] = ()
    """One warning line for each thing kubesched cannot do on this API server."""
    dra: bool = True
    """Whether `resource.k8s.io/v1` is served."""
    _held: set[str] = field(default_factory=set, compare=False)

    def serves(self, spec: ResourceSpec) -> bool:
        return _key(spec) not in self.unserved

    def hold(self, pod: Pod) -> str | None:
        """The plugin that holds `pod` back (DynamicResources, for a pod with ResourceClaims
        while DRA is not served), or None; logged once per pod."""
        if self.dra or not pod.resource_claims:
            return None
        if pod.uid not in self._held:
            self._held.add(pod.uid)
            log.warning(
                "pod references ResourceClaims, but the API server does not serve "
                f"{DRA}; it stays Pending",
                extra=kv(pod=pod.key, claims=",".join(pod.resource_claims)),
            )
        return DYNAMIC_RESOURCES


def everything_served(config: KubeSchedulerConfiguration) -> ApiSupport:
    """No check made (tests that build without an API server)."""
    return ApiSupport(config=config, version=ServerVersion("unknown version", None, None))


async def check_api_server(client: KubeClient, config: KubeSchedulerConfiguration) -> ApiSupport:
    """Read the version and discovery; raise StartupError when kubesched cannot run there."""
    version = ServerVersion.from_json(await _version(client))
    log.info("connected", extra=kv(server=client.server, version=version.git_version))
    problem = await unserved_problem(client, config)
    if problem:
        raise StartupError(problem)
    registry = config_registry(config.plugin_modules)
    specs = cluster_resources(config, registry)
    served = await _discover(client, {(spec.group, spec.version) for spec in specs})
    missing = [spec for spec in specs if not _is_served(spec, served)]
    return _adapt(config, registry, version, missing, server=client.server)


def _adapt(
    config: KubeSchedulerConfiguration,
    registry: Registry,
    version: ServerVersion,
    missing: list[ResourceSpec],
    *,
    server: str,
) -> ApiSupport:
    notices = [note] if (note := version.support_note()) else []
    dra_missing = [spec for spec in missing if spec.group == GROUP and spec.version == VERSION]
    others = [spec for spec in missing if spec not in dra_missing]
    if others:
        raise StartupError(_refusal(config, registry, others, server, version))
    dra = not any(not spec.same_resource(DEVICE_TAINT_RULES) for spec in dra_missing)
    unserved = {_key(spec) for spec in dra_missing}
    if not dra:
        profiles = [
            p for p in config.profiles if DYNAMIC_RESOURCES in enabled_plugin_names(p, registry)
        ]
        config = dataclasses.replace(
            config,
            profiles=tuple(
                _without(p, DYNAMIC_RESOURCES) if p in profiles else p for p in config.profiles
            ),
        )
        notices.append(_dra_notice(version, [p.scheduler_name for p in profiles]))
        unserved |= {
            _key(spec) for spec in cluster_resources(config, registry) if spec.group == GROUP
        }
    elif dra_missing:
        notices.append(
            f"this API server ({version.git_version}) does not serve "
            f"devicetaintrules.{DRA} (Kubernetes 1.37+): DeviceTaintRules are not read; "
            "device taints come from the ResourceSlices alone"
        )
    return ApiSupport(
        config=config,
        version=version,
        unserved=frozenset(unserved),
        notices=tuple(notices),
        dra=dra,
    )


def _dra_notice(version: ServerVersion, profiles: list[str]) -> str:
    names = ", ".join(profiles)
    disabled = (
        f"DynamicResources is disabled for profile {names}"
        if profiles
        else "no profile enables DynamicResources"
    )
    return (
        f"this API server ({version.git_version}) does not serve {DRA} "
        f"(Kubernetes 1.{MINIMUM_MINOR}+): {disabled}; pods that reference ResourceClaims stay "
        "Pending and DeviceClasses (extended resources backed by DRA) are not read"
    )


def _refusal(
    config: KubeSchedulerConfiguration,
    registry: Registry,
    missing: Iterable[ResourceSpec],
    server: str,
    version: ServerVersion,
) -> str:
    parts = []
    for spec in missing:
        readers = sorted(
            {
                f"{name} (profile {profile.scheduler_name})"
                for profile in config.profiles
                for name in enabled_plugin_names(profile, registry)
                if any(s.same_resource(spec) for s in plugin_resources(registry.get(name)))
            }
        )
        group = f"{spec.group}/{spec.version}" if spec.group else spec.version
        parts.append(f"{spec.resource}.{group}, read by {', '.join(readers) or 'kubesched'}")
    return (
        f"the API server at {server} ({version.git_version}) does not serve "
        f"{'; '.join(parts)}: install its CustomResourceDefinition or enable that API "
        "(kube-apiserver --runtime-config), or disable the plugin in the profile"
    )


def _without(profile: Profile, plugin: str) -> Profile:
    """`profile` with `plugin` disabled at every extension point (multiPoint included)."""
    plugins = {
        point: PluginSet(
            enabled=tuple(ref for ref in plugin_set.enabled if ref.name != plugin),
            disabled=plugin_set.disabled,
        )
        for point, plugin_set in profile.plugins.items()
    }
    multi = plugins.get(MULTI_POINT, PluginSet())
    plugins[MULTI_POINT] = PluginSet(
        enabled=multi.enabled, disabled=(*multi.disabled, PluginRef(plugin))
    )
    return dataclasses.replace(profile, plugins=plugins)


async def _discover(
    client: KubeClient, group_versions: set[tuple[str, str]]
) -> dict[tuple[str, str], set[str] | None]:
    """The resources served per group/version: an empty set when the group/version is not
    served (404), None when discovery could not tell (then it is assumed served)."""
    served: dict[tuple[str, str], set[str] | None] = {}
    for group, version in sorted(group_versions):
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            document = await client.get(path, timeout=10)
        except NotFound:
            served[(group, version)] = set()
            continue
        except ApiError as exc:
            log.info("discovery failed; assuming served", extra=kv(path=path, error=str(exc)))
            served[(group, version)] = None
            continue
        served[(group, version)] = {
            str(item.get("name")) for item in document.get("resources") or () if item.get("name")
        }
    return served


def _is_served(spec: ResourceSpec, served: dict[tuple[str, str], set[str] | None]) -> bool:
    resources = served.get((spec.group, spec.version))
    return resources is None or spec.resource in resources


def _key(spec: ResourceSpec) -> Key:
    return spec.group, spec.version, spec.resource


async def _version(client: KubeClient) -> dict[str, object]:
    server = client.server
    try:
        return await client.get("/version", timeout=10)
    except Unauthorized as exc:
        raise StartupError(
            f"the API server at {server} rejected kubesched's credentials ({exc.status} "
            f"{exc.reason}); check the token, client certificate or exec plugin of the user "
            "in --kubeconfig"
        ) from exc
    except ConnectionFailed as exc:
        if "CERTIFICATE_VERIFY_FAILED" in exc.message or "certificate verify" in exc.message:
            raise StartupError(
                f"the API server at {server} presented a certificate that is not trusted "
                f"({exc.message}); pass --kubeconfig with the cluster's certificate-authority"
            ) from exc
        raise StartupError(
            f"cannot reach the API server at {server}: {exc.message}; "
            "check --kubeconfig/--master and that the API server is up"
        ) from exc
    except ApiError as exc:
        raise StartupError(
            f"the API server at {server} answered GET /version with {exc}; check that "
            "--kubeconfig/--master point at a Kubernetes API server"
        ) from exc
