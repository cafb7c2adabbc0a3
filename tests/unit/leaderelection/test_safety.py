"""Property: whatever the network does, at most one replica may bind at any moment, and
once the network heals exactly one replica leads.

Three replicas (each restarted with a new identity when its `run` ends, as a pod would be)
share one Lease; links drop and come back at random, answers are lost after the write was
committed, latencies differ. Every 50 ms of virtual time we count the replicas whose
`fenced()` is False: never more than one.
"""

from __future__ import annotations

import asyncio
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubesched.leaderelection import ElectionConfig, LeaderElector
from tests.unit.leaderelection.conftest import Harness

REPLICAS = 3
CHAOS_UNTIL = 120.0
END = CHAOS_UNTIL + 60.0

outages = st.lists(
    st.tuples(
        st.integers(0, REPLICAS - 1),
        st.floats(0, CHAOS_UNTIL - 30),
        st.floats(0.5, 30),
    ),
    max_size=5,
)
timings = st.sampled_from(
    [
        ElectionConfig(),
        ElectionConfig(lease_duration=4, renew_deadline=3, retry_period=1),
        ElectionConfig(lease_duration=2, renew_deadline=1.5, retry_period=1),
    ]
)


async def replica(
    harness: Harness, index: int, config: ElectionConfig, seed: int, live: dict[int, LeaderElector]
) -> None:
    generation = 0
    while True:
        identity = f"r{index}-{generation}"
        harness.apis[identity] = harness.api(f"r{index}")
        elector = harness.elector(identity, config=config, seed=seed + generation)
        live[index] = elector
        await elector.run()
        generation += 1


async def chaos(harness: Harness, plan: list[tuple[int, float, float]]) -> None:
    loop = asyncio.get_running_loop()
    for index, start, duration in sorted(plan, key=lambda item: item[1]):
        await asyncio.sleep(max(0.0, start - loop.time()))
        api = harness.api(f"r{index}")
        api.partitioned = True
        loop.call_later(duration, setattr, api, "partitioned", False)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    plan=outages,
    config=timings,
    seed=st.integers(0, 2**16),
    latencies=st.lists(st.floats(0, 0.3), min_size=REPLICAS, max_size=REPLICAS),
)
def test_never_two_unfenced_leaders_and_one_leader_after_healing(
    harness_factory: type[Harness],
    plan: list[tuple[int, float, float]],
    config: ElectionConfig,
    seed: int,
    latencies: list[float],
) -> None:
    harness = harness_factory()
    live: dict[int, LeaderElector] = {}
    rng = random.Random(seed)
    for index, latency in enumerate(latencies):
        harness.api(f"r{index}").latency = latency

    async def main() -> tuple[list[str], str]:
        tasks = [
            asyncio.create_task(replica(harness, i, config, rng.randrange(1000), live))
            for i in range(REPLICAS)
        ]
        tasks.append(asyncio.create_task(chaos(harness, plan)))
        loop = asyncio.get_running_loop()
        while loop.time() < END:
            await asyncio.sleep(0.05)
            unfenced = [e.identity for e in live.values() if not e.fenced()]
            assert len(unfenced) <= 1, f"two replicas may bind at t={loop.time():.2f}: {unfenced}"
        leaders = [e.identity for e in live.values() if e.is_leader()]
        holder = harness.store.holder()
        for task in tasks:
            task.cancel()
        return leaders, holder

    leaders, holder = harness.run(main())
    assert leaders == [holder]
