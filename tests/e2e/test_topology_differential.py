"""Topology-aware gang placement on seeded random clusters, decided by kube-scheduler v1.37.2
and by kubesched on the same cluster, one after the other (both with `GenericWorkload` and
`TopologyAwareWorkloadScheduling`, as kube-apiserver).

For each seed (harness/topology_scenario.py): zones of racks of nodes of varying cpu and
memory (some racks too small, a node now and then without a rack label), a few pods already
bound, and three to five PodGroups whose `schedulingConstraints.topology` names the rack
key, the zone key or a key no node carries, with members of one size or of several, some
with members beyond `minCount`. The gangs are submitted one at a time to kube-scheduler, in
one namespace; its pods are deleted; then the same gangs go to kubesched in another
(harness/topology_live.py).
Compared (harness/topology_compare.py): each run against an independent checker of
upstream's rules (harness/topology_check.py: all or nothing, one domain, capacity), and the
runs against each other while their clusters agree: bound or not, PodGroup condition,
PodScheduled and FailedScheduling texts, and the domain where upstream's choice is
deterministic. A failing seed writes the scenario and both runs, every text in full, to
`parity-failures/topology-seed-<seed>.json` (`PARITY_OUT` elsewhere).

`make test` runs one fixed seed; `make parity` runs `TOPOLOGY_SEEDS` (default 1-30).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from kubesched.localcluster import LocalCluster
from tests.e2e.conftest import TOPOLOGY_GATES
from tests.e2e.harness import ApiClient
from tests.e2e.harness.diff.fixtures import seeds_from_env
from tests.e2e.harness.kubesched import start_kubesched
from tests.e2e.harness.topology_compare import Run, compare
from tests.e2e.harness.topology_live import LiveSide, clear_pods, prepare, see_nodes
from tests.e2e.harness.topology_scenario import Scenario, generate

THEIRS, OURS = "tas-diff-kube-scheduler", "tas-diff-kubesched"
FIXED_SEEDS = (2,)
"""Six nodes in two zones: two gangs that fit one zone only (bound there on both; the first
has two members beyond `minCount`), one that fits no rack, one whose key no node carries."""


@pytest.fixture(scope="module")
def schedulers(
    local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    """kube-scheduler (pods of THEIRS) and kubesched (pods of OURS), both gated."""
    process = "kube-scheduler-tas-diff"
    local_cluster.start_extra_scheduler(
        process, scheduler_name=THEIRS, generic_workload=True, extra_args=(TOPOLOGY_GATES,)
    )
    workdir: Path = tmp_path_factory.mktemp("topology-diff")
    ours = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--scheduler-name={OURS}",
        TOPOLOGY_GATES,
        workdir=workdir,
        name="kubesched-tas-diff",
        token=local_cluster.admin_token,
    )
    try:
        ours.wait_ready()
        yield
    finally:
        ours.stop()
        local_cluster.stop_extra_scheduler(process)


@pytest.mark.parametrize("seed", seeds_from_env("TOPOLOGY_SEEDS", FIXED_SEEDS))
def test_random_topology_gangs_match_kube_scheduler(
    seed: int,
    schedulers: None,
    api: ApiClient,
    new_namespace: Callable[..., str],
    pytestconfig: pytest.Config,
) -> None:
    del schedulers
    scenario = generate(seed)
    prepare(api, scenario, new_namespace(f"tas-diff-{seed}-bound"))
    runs = []
    for scheduler in (THEIRS, OURS):
        namespace = new_namespace(f"tas-diff-{seed}-{scheduler[9:]}")
        see_nodes(api, scheduler, namespace, len(scenario.nodes))
        side = LiveSide(api, scheduler, scenario, namespace)
        runs.append(Run(side.run(), side.final_nodes()))
        clear_pods(api, namespace)
    tally = compare(scenario, *runs)
    print(f"TOPOLOGY seed={seed} {tally.summary()}", *tally.trace, sep="\n  ")
    details = "\n".join(f"  {line}" for line in tally.mismatches)
    steps = "\n".join(f"  {line}" for line in tally.trace)
    written = _reproducer(pytestconfig, scenario, runs) if tally.mismatches else ""
    assert not tally.mismatches, (
        f"seed {seed}: {len(tally.mismatches)} differences\n{details}\nsteps:\n{steps}\n"
        f"both runs in full: {written}"
    )


def _reproducer(config: pytest.Config, scenario: Scenario, runs: list[Run]) -> Path:
    """Write the scenario and both runs (every text in full) to parity-failures/."""
    out = Path(os.environ.get("PARITY_OUT") or config.rootpath / "parity-failures")
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"topology-seed-{scenario.seed}.json"
    sides = dict(zip((THEIRS, OURS), (asdict(run) for run in runs), strict=True))
    path.write_text(json.dumps({"scenario": asdict(scenario), **sides}, indent=1))
    return path
