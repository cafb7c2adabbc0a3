"""CapacityScheduling on seeded random scenarios, decided by scheduler-plugins' own build
(v0.35.4-devel) and by kubesched on the same cluster, one after the other.

For each seed (harness/quota_scenario.py): two or three nodes with cpu, memory and
sometimes `nvidia.com/gpu`; namespaces with ElasticQuotas (random `min` <= `max`; now and
then one without `min` or without GPUs) and maybe one without a quota; PriorityClasses; and
a sequence of pods that fit, borrow other quotas' unused `min`, are refused at PreFilter,
and take their guarantee back by preemption. scheduler-plugins' scheduler runs the sequence
first, in its own namespaces; everything of its run is deleted; then kubesched runs it in
fresh namespaces on the same nodes (harness/quota_live.py). Both profiles are
scheduler-plugins' example with NodeResourcesFit as the only scorer (its other in-tree
scorers are v1.35's). Compared (harness/quota_compare.py): each decision against an
independent reference model of the quota rules (harness/quota_model.py,
harness/quota_expect.py), and the two runs against each other while they agree: outcome,
refusal text, node and victims where the rules leave one choice.

`make test` runs two fixed seeds; `make parity` runs `QUOTA_SEEDS` (default 1-30).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator

import pytest

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node
from tests.e2e.harness import ApiClient
from tests.e2e.harness.capacity_sides import both_schedulers
from tests.e2e.harness.diff.fixtures import seeds_from_env
from tests.e2e.harness.quota_compare import compare
from tests.e2e.harness.quota_live import LiveSide
from tests.e2e.harness.quota_scenario import Scenario, class_names, generate

USES_SCHEDULER_PLUGINS = True
SP, KS = "sp-quota", "ks-quota"
FIXED_SEEDS = (23, 88)
"""Both borrow, reclaim by preemption and are refused (at PreFilter, for room, and for a pod
with preemptionPolicy Never), with GPUs and a namespace without a quota; 23 has a quota
without `max` and one without GPUs, 88 three quotas."""
PLUGINS = {
    "multiPoint": {"enabled": [{"name": "CapacityScheduling"}]},
    "postFilter": {"enabled": [{"name": "CapacityScheduling"}], "disabled": [{"name": "*"}]},
    "score": {"enabled": [{"name": "NodeResourcesFit", "weight": 1}], "disabled": [{"name": "*"}]},
}
"""scheduler-plugins' manifests/capacityscheduling/scheduler-config.yaml, one scorer."""


@pytest.fixture(scope="module")
def schedulers(
    local_cluster: LocalCluster, api: ApiClient, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[None]:
    workdir = tmp_path_factory.mktemp("quota-diff")
    with both_schedulers(local_cluster, api, workdir, plugins=PLUGINS, theirs=SP, ours=KS):
        yield


@pytest.fixture
def classes(api: ApiClient) -> Iterator[dict[str, str]]:
    """This test's PriorityClasses by short name (cluster-scoped, so suffixed)."""
    suffix = secrets.token_hex(3)
    wanted = class_names()
    made = {short: f"qd-{short}-{suffix}" for short in wanted}
    for short, name in made.items():
        value, never = wanted[short]
        body = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": value}
        policy = {"preemptionPolicy": "Never"} if never else {}
        api.create({**body, **policy, "metadata": {"name": name}})
    try:
        yield made
    finally:
        for name in made.values():
            api.delete("PriorityClass", name)


def _nodes(api: ApiClient, scenario: Scenario) -> None:
    for node in scenario.nodes:
        amounts = node.allocatable.as_list(gpu=node.allocatable.gpu > 0)
        api.create(make_node().name(node.name).capacity_named({**amounts, "pods": "110"}).obj())


def _stray_quotas(api: ApiClient) -> None:
    """Delete ElasticQuotas other tests left (every quota's `min` counts in the sum)."""
    for quota in api.request("GET", "/apis/scheduling.x-k8s.io/v1alpha1/elasticquotas")["items"]:
        meta = quota["metadata"]
        path = f"/apis/scheduling.x-k8s.io/v1alpha1/namespaces/{meta['namespace']}"
        api.request("DELETE", f"{path}/elasticquotas/{meta['name']}")


@pytest.mark.parametrize("seed", seeds_from_env("QUOTA_SEEDS", FIXED_SEEDS))
def test_random_quota_decisions_match_scheduler_plugins(
    seed: int,
    schedulers: None,
    api: ApiClient,
    new_namespace: Callable[..., str],
    classes: dict[str, str],
) -> None:
    del schedulers
    scenario = generate(seed)
    _stray_quotas(api)
    _nodes(api, scenario)
    runs = []
    for scheduler in (SP, KS):
        namespaces = {ns: new_namespace(f"qd-{scheduler[:2]}-{ns}") for ns in scenario.namespaces}
        runs.append(LiveSide(api, scheduler, scenario, namespaces, classes).run())
    tally = compare(scenario, *runs)
    print(f"QUOTA seed={seed} {tally.summary()}", *tally.trace, sep="\n  ")
    details = "\n".join(f"  {line}" for line in tally.mismatches)
    steps = "\n".join(f"  {line}" for line in tally.trace)
    assert not tally.mismatches, (
        f"seed {seed}: {len(tally.mismatches)} differences\n{details}\nsteps:\n{steps}"
    )
