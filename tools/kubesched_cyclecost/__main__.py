"""`python -m kubesched_cyclecost --nodes 65000 --initial-pods 10000 --pods 2000`."""

from __future__ import annotations

import argparse
import cProfile
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from kubesched.apis.config import Profile
from kubesched.bench import templates
from kubesched.cache import SchedulerCache, Snapshot
from kubesched.explain.handle import ReadOnlyHandle
from kubesched.framework import CycleState
from kubesched.model import Node, Pod
from kubesched.plugins import in_tree_registry
from kubesched.runtime import FitError, Framework, SchedulingError, build_framework, scoring
from kubesched.runtime.schedule import schedule_pod

TEMPLATES = (
    "pod_default",
    "pod_with_pod_anti_affinity",
    "pod_with_preferred_pod_affinity",
    "pod_with_preferred_pod_anti_affinity",
    "pod_with_node_affinity",
    "pod_with_topology_spreading",
    "pod_with_preferred_topology_spreading",
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kubesched_cyclecost", description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--initial-pods", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=2000)
    parser.add_argument("--template", choices=TEMPLATES, default="pod_default")
    parser.add_argument("--zones", type=int, default=0, help="zone labels on the nodes (0: none)")
    parser.add_argument("--batch", action="store_true", help="OpportunisticBatching on")
    parser.add_argument("--profile", default="", help="write a cProfile of the measured pods")
    parser.add_argument("--placements", default="", help="write each pod's node to this file")
    return parser


def _cluster(args: argparse.Namespace) -> SchedulerCache:
    cache = SchedulerCache()
    for index in range(args.nodes):
        labels = {templates.ZONE: f"zone{index % args.zones + 1}"} if args.zones else {}
        cache.add_node(Node.from_json(templates.node_default(f"node-{index}", labels)))
    rng = random.Random(1)  # noqa: S311 - where the initial pods go, not cryptography
    for index in range(args.initial_pods):
        obj = templates.pod_default(f"init-{index}", "ns", "default-scheduler")
        obj["metadata"]["uid"] = f"uid-init-{index}"
        obj["spec"]["nodeName"] = f"node-{rng.randrange(args.nodes)}"
        cache.add_pod(Pod.from_json(obj))
    return cache


def _schedule(
    fw: Framework, cache: SchedulerCache, snapshot: Snapshot, pods: Sequence[Pod], first: int
) -> list[str]:
    hosts = []
    for cycle, pod in enumerate(pods, start=first):
        cache.update_snapshot(snapshot)
        try:
            result = schedule_pod(fw, CycleState(), pod, snapshot.node_infos, cycle=cycle)
        except (FitError, SchedulingError):
            hosts.append("-")  # fits nowhere (or a plugin failed): not placed
            continue
        cache.assume_pod(pod, result.suggested_host)
        hosts.append(result.suggested_host)
    return hosts


def _args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The parsed command line; argparse's one-line error (exit 2) for values that cannot
    make a run."""
    parser = _parser()
    args = parser.parse_args(argv)
    for flag, value, least in (
        ("--nodes", args.nodes, 1),
        ("--initial-pods", args.initial_pods, 0),
        ("--pods", args.pods, 1),
        ("--zones", args.zones, 0),
    ):
        if value < least:
            parser.error(f"argument {flag}: must be {least} or more, got {value}")
    for flag, path in (("--profile", args.profile), ("--placements", args.placements)):
        if path and not Path(path).absolute().parent.is_dir():
            parser.error(f"argument {flag}: the folder of {path} does not exist")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _args(argv)
    try:
        return _run(args)
    except OSError as error:
        where = f" ({error.filename})" if error.filename else ""
        sys.stderr.write(f"kubesched-cyclecost: {error.strerror or error}{where}\n")
        return 1


def _run(args: argparse.Namespace) -> int:
    scoring._RNG.seed(7)
    cache = _cluster(args)
    snapshot = Snapshot()
    cache.update_snapshot(snapshot)
    fw = build_framework(
        profile=Profile(scheduler_name="kubesched"),
        registry=in_tree_registry(),
        handle=ReadOnlyHandle(snapshot),
        opportunistic_batching=args.batch,
    )
    template = getattr(templates, args.template)
    pods = []
    for index in range(args.pods):
        obj = template(f"p-{index}", "ns", "kubesched")
        obj["metadata"]["uid"] = f"uid-p-{index}"
        pods.append(Pod.from_json(obj))
    warm = len(pods) // 4
    hosts = _schedule(fw, cache, snapshot, pods[:warm], 0)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    started = time.process_time()
    hosts += _schedule(fw, cache, snapshot, pods[warm:], warm)
    spent = time.process_time() - started
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    measured = max(len(pods) - warm, 1)
    sys.stdout.write(
        f"{args.template}: {args.nodes} nodes, {args.initial_pods} initial pods,"
        f" {measured} measured pods: {spent / measured * 1000:.3f} ms of CPU a pod\n"
    )
    if args.placements:
        Path(args.placements).write_text("".join(f"{host}\n" for host in hosts), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
