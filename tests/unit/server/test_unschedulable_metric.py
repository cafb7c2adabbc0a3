"""`scheduler_unschedulable_pods{plugin,profile}` as the pending-pods report sets it from the
queue's kept counts: one series a (plugin, profile), back to 0 once its pods move on."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from kubesched.queue import SchedulingQueue
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.app import _report_unschedulable
from kubesched.server.components import Components
from kubesched.testing import make_pod
from tests.unit.queue.queue_fakes import FakeClock, gates, priority_sort


def _value(metrics: SchedulerMetrics, plugin: str, profile: str) -> float | None:
    labels = {"plugin": plugin, "profile": profile}
    return metrics.registry.get_sample_value("scheduler_unschedulable_pods", labels)


async def test_the_report_sets_each_series_and_zeroes_those_that_emptied() -> None:
    queue = SchedulingQueue(less=priority_sort, pre_enqueue=gates, clock=FakeClock())
    metrics = SchedulerMetrics()
    components = cast("Components", SimpleNamespace(queue=queue, metrics=metrics))
    gated = [make_pod().name(f"g{i}").scheduling_gate("w").model() for i in range(3)]
    for pod in gated:
        queue.add(pod)
    queue.add(make_pod().name("r").scheduler("second").model())
    qpi = await queue.pop()
    assert qpi is not None
    qpi.unschedulable_plugins, qpi.pending_plugins = {"NodeAffinity"}, {"DynamicResources"}
    queue.add_unschedulable_if_not_present(qpi, pod_scheduling_cycle=queue.scheduling_cycle)

    reported = _report_unschedulable(components, set())
    assert _value(metrics, "SchedulingGates", "default-scheduler") == 3
    assert _value(metrics, "NodeAffinity", "second") == 1
    assert _value(metrics, "DynamicResources", "second") == 1

    queue.delete(gated[0])
    queue.delete(qpi.pod)
    reported = _report_unschedulable(components, reported)
    assert _value(metrics, "SchedulingGates", "default-scheduler") == 2
    assert _value(metrics, "NodeAffinity", "second") == 0
    assert _value(metrics, "DynamicResources", "second") == 0
    assert len(reported) == 3
