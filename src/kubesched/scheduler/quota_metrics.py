"""`kubesched_elastic_quota_resource{quota,namespace,resource,kind}`: each ElasticQuota's used,
min, max and borrowed amounts (and its runtime share with a quota tree), from every profile
that runs CapacityScheduling, read from the plugin when /metrics is scraped.

kube-scheduler has no such family (scheduler-plugins exports none either); it sits beside
kube-scheduler's `scheduler_*` families under kubesched's prefix. Units as
`kube_pod_resource_request`'s: cpu in cores, memory and storage in bytes, other resources
as counted. A `max` the quota leaves unlimited has no series; `runtime` exists only while a
quota tree is in use (the shares of the last PreFilter).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

from kubesched.model.resources import CPU
from kubesched.plugins.capacity_scheduling import CapacityScheduling
from kubesched.runtime import Framework

NAME = "kubesched_elastic_quota_resource"
HELP = (
    "ElasticQuota amounts per namespace and resource: used, min, max, borrowed (used beyond "
    "min) and, with a quota tree, the runtime share (cpu in cores)."
)
LABELS = ["quota", "namespace", "resource", "kind", "profile"]


class QuotaMetricsCollector(Collector):
    """The family over the CapacityScheduling plugins of the profiles, by profile name."""

    def __init__(self, plugins: Mapping[str, CapacityScheduling]) -> None:
        self._plugins = dict(plugins)

    def describe(self) -> Iterator[Metric]:
        return iter(())

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily(NAME, HELP, labels=LABELS)
        for profile, plugin in sorted(self._plugins.items()):
            for row in plugin.quota_rows():
                for resource, kind, amount in row.amounts():
                    value = amount / 1000 if resource == CPU else float(amount)
                    family.add_metric([row.name, row.namespace, resource, kind, profile], value)
        yield family


def capacity_plugins(frameworks: Mapping[str, Framework]) -> dict[str, CapacityScheduling]:
    """The CapacityScheduling plugin of each profile that runs it."""
    found: dict[str, CapacityScheduling] = {}
    for profile, framework in frameworks.items():
        for plugin in _pre_filters(framework):
            if isinstance(plugin, CapacityScheduling):
                found[profile] = plugin
    return found


def _pre_filters(framework: Framework) -> Iterable[object]:
    return list(framework.plugins.pre_filter)


def register_quota_metrics(
    registry: CollectorRegistry, frameworks: Mapping[str, Framework]
) -> bool:
    """Serve the family when some profile runs CapacityScheduling; whether it does."""
    plugins = capacity_plugins(frameworks)
    if plugins:
        registry.register(QuotaMetricsCollector(plugins))
    return bool(plugins)
