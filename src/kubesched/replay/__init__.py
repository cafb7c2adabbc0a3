"""Record a cluster, replay it in process against any configuration (docs/replay.md).

`kubesched record` (`recorder`) lists and watches what scheduling reads into a trace
(`trace`, `kinds`); `kubesched replay` (`replay_trace`) loads a trace into the production
engine of each configuration (`engine`, `cluster`) and drives it on a virtual clock
(`loop`), then reports decisions and KPIs (`report`). A replay never contacts a cluster.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.replay.engine import build_engine
from kubesched.replay.loop import Replay
from kubesched.replay.report import ConfigReport, end_state
from kubesched.replay.trace import Trace, TraceError, read_trace
from kubesched.replay.virtual_loop import run_on_virtual_time

__all__ = ["ConfigReport", "Trace", "TraceError", "read_trace", "replay_config", "replay_trace"]


async def replay_config(
    name: str,
    config: KubeSchedulerConfiguration,
    recorded: Trace,
    *,
    seed: int = 0,
    follow_ties: bool = True,
) -> ConfigReport:
    """One configuration's replay of `recorded` (`follow_ties`: see `loop.Replay`)."""
    started = time.perf_counter()
    engine = build_engine(config)
    result = await Replay(engine, recorded, seed=seed, follow_ties=follow_ties).run()
    shares, empty_nodes = end_state(engine.cache, engine.snapshot)
    wall = round(time.perf_counter() - started, 3)
    return ConfigReport(name, result, shares, empty_nodes, wall_seconds=wall)


def replay_trace(
    recorded: Trace,
    configs: Sequence[tuple[str, KubeSchedulerConfiguration]],
    *,
    seed: int = 0,
    follow_ties: bool = True,
) -> list[ConfigReport]:
    """Each named configuration's replay of `recorded`, one after the other, each on an
    event loop of its own whose timers run on the replay's virtual clock."""
    return [
        run_on_virtual_time(
            replay_config(name, config, recorded, seed=seed, follow_ties=follow_ties)
        )
        for name, config in configs
    ]
