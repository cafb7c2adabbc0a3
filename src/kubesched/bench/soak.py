"""`make soak MINUTES=60`: kubesched's memory under steady churn, on a local control plane.

300 nodes; 30 pods/s created, each deleted 90 s after its creation (about 2,700 pods alive
at any time, every one of them new, most with inter-pod affinity terms); a node replaced
every minute (`bench.soak_churn`). kubesched's RSS is read once a minute, from when it
bound its first pod, and printed. The run fails (exit 1) when the RSS grew more than 5 %
over the run's last two thirds (from minute N/3 to minute N), when a pod was deleted
before kubesched bound it, or when kubesched exited.

    python -m kubesched.bench.soak --minutes 60
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kubesched.bench.contenders import KUBESCHED, ClientLimits, start_contender
from kubesched.bench.procstat import rss_bytes
from kubesched.bench.soak_churn import Churn, ChurnCounts, ChurnSpec
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.localcluster import LocalCluster, LocalClusterError, Process

log = logging.getLogger(__name__)

SCHEDULER = "soak-scheduler"
MAX_GROWTH_PERCENT = 5.0
READY_TIMEOUT = 120.0
"""Seconds kubesched may take to bind its first pod."""
_MIB = 1024 * 1024
Print = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Growth:
    """The RSS over the last two thirds of a run."""

    from_minute: int
    from_bytes: int
    to_bytes: int

    @property
    def percent(self) -> float:
        return 100.0 * (self.to_bytes - self.from_bytes) / max(self.from_bytes, 1)


def growth(samples: Sequence[int]) -> Growth:
    """`samples[m]` is the RSS at minute m (0..N): from minute N // 3 to minute N."""
    if len(samples) < 2:
        raise ValueError("a soak needs samples of at least one minute")
    start = (len(samples) - 1) // 3
    return Growth(start, samples[start], samples[-1])


def problems(found: Growth, counts: ChurnCounts, *, max_percent: float) -> list[str]:
    """Why the run failed (none: it passed)."""
    failed = []
    if found.percent > max_percent:
        failed.append(
            f"RSS grew {found.percent:.1f} % from minute {found.from_minute} "
            f"(limit {max_percent:g} %)"
        )
    if counts.unbound_at_deletion:
        failed.append(
            f"{counts.unbound_at_deletion} pod(s) deleted before kubesched bound them "
            f"(first: {counts.first_unbound})"
        )
    return failed


def _row(minute: int, rss: int, counts: ChurnCounts, alive: int) -> str:
    return (
        f"{minute:6d} {rss / _MIB:9.1f} {counts.created:9d} {alive:6d} {counts.bound:9d} "
        f"{counts.nodes_replaced:6d}"
    )


async def _soak(
    cluster: LocalCluster, spec: ChurnSpec, minutes: int, out: Print
) -> tuple[list[int], ChurnCounts]:
    """Set the cluster up, start kubesched, churn for `minutes`; the RSS per minute."""
    connection = await load_connection(kubeconfig=str(cluster.kubeconfig_path))
    client = KubeClient(connection, qps=1e6, burst=1_000_000, max_connections=48)
    try:
        churn = Churn(client, spec, SCHEDULER)
        await churn.setup()
        limits = ClientLimits(scheduler_name=SCHEDULER, qps=5000.0, burst=5000)
        process = start_contender(KUBESCHED, cluster, limits)
        task = asyncio.create_task(churn.run())
        try:
            samples = await _sample(process, churn, task, minutes, out)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        return samples, churn.counts
    finally:
        await client.close()


async def _sample(
    process: Process, churn: Churn, task: asyncio.Task[None], minutes: int, out: Print
) -> list[int]:
    """kubesched's RSS at minute 0..`minutes` (minute 0: when it bound its first pod),
    printed as it comes."""
    pid = process.pid or 0
    out(f"{'minute':>6} {'RSS MiB':>9} {'created':>9} {'alive':>6} {'bound':>9} {'nodes':>6}")
    deadline = time.monotonic() + READY_TIMEOUT
    while not churn.counts.bound:
        _check(process, task)
        if time.monotonic() > deadline:
            raise RuntimeError(f"kubesched bound no pod in {READY_TIMEOUT:g} s")
        await asyncio.sleep(0.2)
    started = time.monotonic()
    samples: list[int] = []
    for minute in range(minutes + 1):
        while time.monotonic() < started + 60.0 * minute:
            _check(process, task)
            await asyncio.sleep(1.0)
        samples.append(rss_bytes(pid))
        out(_row(minute, samples[-1], churn.counts, churn.alive))
    return samples


def _check(process: Process, task: asyncio.Task[None]) -> None:
    """Raise when kubesched exited or the churn stopped."""
    if not process.running():
        raise RuntimeError(f"kubesched exited with code {process.returncode()}")
    if task.done():
        task.result()  # the churn's error, if any
        raise RuntimeError("the churn stopped")


def _print(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run(spec: ChurnSpec, *, minutes: int, max_percent: float, out: Print = _print) -> int:
    """The whole soak on a fresh local control plane; the exit code."""
    out(
        f"soak: {spec.nodes} nodes, {spec.rate:g} pods/s each deleted after "
        f"{spec.lifetime:g} s, a node replaced every {spec.node_interval:g} s, {minutes} min"
    )
    cluster = LocalCluster(progress=lambda _message: None)
    failed: list[str] = []
    try:
        cluster.start()
        samples, counts = asyncio.run(_soak(cluster, spec, minutes, out))
        found = growth(samples)
        failed = problems(found, counts, max_percent=max_percent)
        out(
            f"RSS {samples[0] / _MIB:.1f} MiB at minute 0, {found.from_bytes / _MIB:.1f} MiB "
            f"at minute {found.from_minute}, {found.to_bytes / _MIB:.1f} MiB at minute "
            f"{minutes}: {found.percent:+.1f} % over the last two thirds "
            f"(limit {max_percent:g} %); {counts.created} pods created, {counts.bound} bound"
        )
    except (LocalClusterError, RuntimeError, OSError) as exc:
        failed = [str(exc).splitlines()[0] if str(exc) else type(exc).__name__]
    finally:
        if failed and cluster.server:
            cluster.keep_logs = True
            failed.append(f"logs: {cluster.logs_dir}")
        cluster.stop()
    out("FAIL: " + "; ".join(failed) if failed else "PASS")
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m kubesched.bench.soak",
        description="kubesched's RSS per minute under steady pod and node churn",
    )
    parser.add_argument("--minutes", type=int, default=10, help="length of the run (>= 1)")
    defaults = ChurnSpec()
    parser.add_argument("--nodes", type=int, default=defaults.nodes)
    parser.add_argument("--rate", type=float, default=defaults.rate, help="pods created/s")
    parser.add_argument("--lifetime", type=float, default=defaults.lifetime, help="seconds")
    parser.add_argument("--max-growth", type=float, default=MAX_GROWTH_PERCENT, help="percent")
    args = parser.parse_args(argv)
    if args.minutes < 1:
        parser.error("--minutes must be at least 1")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(message)s")
    spec = ChurnSpec(nodes=args.nodes, rate=args.rate, lifetime=args.lifetime)
    return run(spec, minutes=args.minutes, max_percent=args.max_growth)


if __name__ == "__main__":
    sys.exit(main())
