"""Check: the API server serves what the profiles read (discovery), as kubesched checks at
start-up (`kubesched.server.apicheck`): `resource.k8s.io/v1` missing disables
DynamicResources (warn), DeviceTaintRules missing are not read (warn), any other resource
missing stops kubesched at start-up (fail)."""

from __future__ import annotations

from kubesched.apis.resources import ResourceSpec
from kubesched.apis.support import MINIMUM_MINOR, SUPPORTED
from kubesched.doctor.context import Context
from kubesched.doctor.result import CheckResult, fail, ok, warn
from kubesched.framework.dra import DEVICE_TAINT_RULES, GROUP, VERSION
from kubesched.kube.errors import NotFound

NAME = "served-apis"
DRA = f"{GROUP}/{VERSION}"


async def _served(ctx: Context, group: str, version: str) -> set[str]:
    path = f"/apis/{group}/{version}" if group else f"/api/{version}"
    try:
        document = await ctx.api.get(path, timeout=5.0)
    except NotFound:
        return set()
    return {str(item.get("name")) for item in document.get("resources") or ()}


def _name(spec: ResourceSpec) -> str:
    return f"{spec.resource}.{spec.group}/{spec.version}" if spec.group else spec.resource


async def check_served(ctx: Context) -> CheckResult:
    """ok when every resource the profiles read is served; see the module docstring."""
    specs = ctx.target.resources
    served: dict[tuple[str, str], set[str]] = {}
    for group, version in sorted({(spec.group, spec.version) for spec in specs}):
        served[(group, version)] = await _served(ctx, group, version)
    missing = [spec for spec in specs if spec.resource not in served[(spec.group, spec.version)]]
    dra = [spec for spec in missing if (spec.group, spec.version) == (GROUP, VERSION)]
    others = [spec for spec in missing if spec not in dra]
    names = [_name(spec) for spec in missing]
    if others:
        return fail(
            NAME,
            f"the API server does not serve {', '.join(_name(s) for s in others)}, which the "
            "profiles' plugins read: kubesched refuses to start",
            "install the CustomResourceDefinition (or enable the API with kube-apiserver "
            "--runtime-config), or disable the plugin that reads it",
            missing=names,
        )
    if any(not spec.same_resource(DEVICE_TAINT_RULES) for spec in dra):
        return warn(
            NAME,
            f"the API server does not serve {DRA} (Kubernetes 1.{MINIMUM_MINOR}+): kubesched "
            "disables DynamicResources at start-up; pods that reference ResourceClaims stay "
            "Pending",
            f"kubesched supports {SUPPORTED}: upgrade the cluster, or enable {DRA}",
            missing=names,
        )
    if dra:
        return warn(
            NAME,
            f"the API server does not serve devicetaintrules.{DRA} (Kubernetes 1.37+): "
            "DeviceTaintRules are not read; device taints come from the ResourceSlices alone",
            "nothing to do unless you use DeviceTaintRules (then upgrade to Kubernetes 1.37)",
            missing=names,
        )
    return ok(NAME, f"serves all {len(specs)} API resources the profiles read", missing=[])
