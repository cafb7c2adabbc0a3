"""The replay's queue is the one `kubesched run` makes (both from `scheduler.shared_queue`): the
same pods in the same sub-queues after the same events, with the same frameworks."""

from __future__ import annotations

import asyncio

from kubesched.config import load_config
from kubesched.model import Pod
from kubesched.queue import SchedulingQueue
from kubesched.replay.engine import build_engine
from kubesched.scheduler.eventhandlers import NODE_ADD
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.frameworks import new_queue
from kubesched.testing.builders import make_node, make_pod


def _pod(name: str, **fields: str) -> Pod:
    builder = make_pod().name(name).namespace("w").scheduler("kubesched").req(cpu="2")
    if fields.get("gate"):
        builder = builder.scheduling_gate(fields["gate"])
    return builder.model()


async def _drive(queue: SchedulingQueue) -> dict[str, list[str]]:
    """Two pods in, one gated; the other tried and rejected for room; then a node added."""
    queue.add(_pod("gated", gate="example.com/wait"))
    queue.add(_pod("big"))
    popped = await queue.pop()
    assert popped is not None
    popped.unschedulable_plugins = {"NodeResourcesFit"}
    queue.add_unschedulable_if_not_present(popped, pod_scheduling_cycle=queue.scheduling_cycle)
    before = {k: sorted(q.pod.name for q in v) for k, v in queue.pending_pods().items()}
    queue.move_all_to_active_or_backoff(NODE_ADD, None, make_node().name("n").model())
    after = {k: sorted(q.pod.name for q in v) for k, v in queue.pending_pods().items()}
    return {**{f"before {k}": v for k, v in before.items()}, **after}


def test_the_replay_queue_behaves_as_the_servers() -> None:
    config = load_config([]).config
    engine = build_engine(config)
    production = new_queue(config, engine.frameworks, engine.queue.nominator, SchedulerMetrics())
    replayed = asyncio.run(_drive(engine.queue))
    assert replayed == asyncio.run(_drive(production))
    assert replayed["before unschedulable"] == ["big"]
    assert replayed["gated"] == ["gated"]
    assert "big" in replayed["backoff"] + replayed["active"]
