"""`GET /metrics/resources`: kube-scheduler's resource metrics, `kube_pod_resource_request` and
`kube_pod_resource_limit` (STABLE), one series per pod and resource, as
`pkg/scheduler/metrics/resources` of kube-scheduler v1.37.2 serves them:

* every pod of the cluster, whatever its scheduler; unscheduled pods too (node ""), but not a
  bound pod that Succeeded or Failed;
* requests and limits as upstream's PodRequests/PodLimits from the spec: containers summed,
  init containers taken at their peak (restartable "sidecar" init containers added to what
  runs after them), pod-level `spec.resources` for cpu, memory and hugepages, the overhead
  added (to limits only where a limit is set); zero values left out;
* `unit` "cores" (cpu), "bytes" (memory, storage, ephemeral-storage, hugepages-*), "integer"
  (attachable-volumes-*), else ""; `priority` from `spec.priority` ("" when unset);
* an empty answer on a replica that does not lead.

kube-scheduler reads them from its pod informer; kubesched's informer keeps slim pods without
limits, so each scrape lists the pods once from the API server's watch cache
(`resourceVersion=0`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from kubesched.kube.api import KubeApi
from kubesched.model.quantity import parse_quantity

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8; escaping=underscores"
_HELP = (
    "Resources {what} workloads on the cluster, broken down by pod. This shows the resource "
    "usage the scheduler and kubelet expect per pod for resources along with the unit for "
    "the resource if any."
)
FAMILIES = (
    ("kube_pod_resource_limit", _HELP.format(what="limit for")),
    ("kube_pod_resource_request", _HELP.format(what="requested by")),
)
LABELS = ("namespace", "node", "pod", "priority", "resource", "scheduler", "unit")
_POD_LEVEL = ("cpu", "memory")
_BYTES = ("memory", "storage", "ephemeral-storage")

Resources = dict[str, Decimal]


async def resource_metrics(client: KubeApi) -> str:
    """The exposition of every pod of the cluster (one list from the watch cache)."""
    listed = await client.get("/api/v1/pods", params={"resourceVersion": "0"}, timeout=60)
    return render(listed.get("items") or ())


def render(pods: Iterable[Mapping[str, Any]]) -> str:
    """The Prometheus text of both families (a family without series is left out)."""
    series: dict[str, list[tuple[tuple[str, ...], float]]] = {name: [] for name, _ in FAMILIES}
    for pod in pods:
        spec, meta = pod.get("spec") or {}, pod.get("metadata") or {}
        node = spec.get("nodeName") or ""
        if node and (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed"):
            continue
        priority = spec.get("priority")
        base = (
            meta.get("namespace") or "",
            node,
            meta.get("name") or "",
            "" if priority is None else str(priority),
        )
        scheduler = spec.get("schedulerName") or ""
        for family, values in (
            ("kube_pod_resource_request", pod_requests(spec)),
            ("kube_pod_resource_limit", pod_limits(spec)),
        ):
            for resource, quantity in values.items():
                if quantity != 0:
                    labels: tuple[str, ...] = (*base, resource, scheduler, unit(resource))
                    series[family].append((labels, float(quantity)))
    lines: list[str] = []
    for name, help_text in FAMILIES:
        if not series[name]:
            continue
        lines += [f"# HELP {name} [STABLE] {help_text}", f"# TYPE {name} gauge"]
        for labels, value in sorted(series[name]):
            pairs = ",".join(f'{k}="{_escape(v)}"' for k, v in zip(LABELS, labels, strict=True))
            lines.append(f"{name}{{{pairs}}} {go_float(value)}")
    return "".join(f"{line}\n" for line in lines)


def unit(resource: str) -> str:
    """The `unit` label of a resource, as upstream names it."""
    if resource == "cpu":
        return "cores"
    if resource in _BYTES or resource.startswith("hugepages-"):
        return "bytes"
    return "integer" if resource.startswith("attachable-volumes-") else ""


def pod_requests(spec: Mapping[str, Any]) -> Resources:
    """Upstream's PodRequests of the spec (see the module docstring)."""
    result = _aggregate(spec, "requests")
    pod_level = (spec.get("resources") or {}).get("requests") or {}
    if any(_pod_level(name) for name in pod_level):
        _apply_pod_level(result, pod_level)
    _add(result, _quantities(spec.get("overhead")))
    return result


def pod_limits(spec: Mapping[str, Any]) -> Resources:
    """Upstream's PodLimits of the spec (see the module docstring)."""
    result = _aggregate(spec, "limits")
    own = spec.get("resources") or {}
    if any(_pod_level(name) for name in (*(own.get("requests") or {}), *(own.get("limits") or {}))):
        _apply_pod_level(result, own.get("limits") or {})
    for name, quantity in _quantities(spec.get("overhead")).items():
        if result.get(name):
            result[name] += quantity
    return result


def _aggregate(spec: Mapping[str, Any], kind: str) -> Resources:
    result: Resources = {}
    for container in spec.get("containers") or ():
        _add(result, _container(container, kind))
    sidecars: Resources = {}
    peak: Resources = {}
    for container in spec.get("initContainers") or ():
        own = _container(container, kind)
        if container.get("restartPolicy") == "Always":
            _add(result, own)
            _add(sidecars, own)
            current = dict(sidecars)
        else:
            current = dict(own)
            _add(current, sidecars)
        _max(peak, current)
    _max(result, peak)
    return result


def _container(container: Mapping[str, Any], kind: str) -> Resources:
    return _quantities((container.get("resources") or {}).get(kind))


def _quantities(values: Mapping[str, Any] | None) -> Resources:
    found: Resources = {}
    for name, text in (values or {}).items():
        try:
            found[str(name)] = parse_quantity(text)
        except (ValueError, ArithmeticError):
            continue  # the API server validated it; nothing to report for an unreadable one
    return found


def _pod_level(name: str) -> bool:
    return name in _POD_LEVEL or name.startswith("hugepages-")


def _apply_pod_level(result: Resources, values: Mapping[str, Any]) -> None:
    for name, quantity in _quantities(values).items():
        if _pod_level(name):
            result[name] = quantity


def _add(total: Resources, more: Mapping[str, Decimal]) -> None:
    for name, quantity in more.items():
        total[name] = total.get(name, Decimal(0)) + quantity


def _max(total: Resources, other: Mapping[str, Decimal]) -> None:
    for name, quantity in other.items():
        if name not in total or quantity > total[name]:
            total[name] = quantity


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def go_float(value: float) -> str:  # noqa: PLR0911 - one return per case of Go's format
    """A sample value as Prometheus' Go client writes it (strconv 'g', shortest)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == 0:
        return "0"
    sign, digits, exponent = Decimal(repr(value)).normalize().as_tuple()
    assert isinstance(exponent, int)
    text = "".join(map(str, digits))
    point = len(text) + exponent  # digits before the decimal point
    power = point - 1
    prefix = "-" if sign else ""
    if power < -4 or power >= 6:  # Go: %e when the exponent is < -4 or >= 6 (shortest)
        mantissa = text[0] + (f".{text[1:]}" if len(text) > 1 else "")
        return f"{prefix}{mantissa}e{'+' if power >= 0 else '-'}{abs(power):02d}"
    if point <= 0:
        return f"{prefix}0.{'0' * -point}{text}"
    if point >= len(text):
        return prefix + text + "0" * (point - len(text))
    return f"{prefix}{text[:point]}.{text[point:]}"
