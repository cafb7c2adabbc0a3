"""explain_live adds the group section (and its sentence) for a gang member, none otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.apis.waitingpods import WaitingPodList, WaitingPodRecord, encode
from kubesched.explain import GetOnly, PermitSource, PodSource, explain_live, table, to_dict
from kubesched.kube.errors import NotFound
from kubesched.server.components import build_registry
from kubesched.testing import make_node, make_pod
from tests.unit.explain.test_explain_live import FakeApi, config, run

LABEL = "scheduling.x-k8s.io/pod-group"
GROUP_PATH = "/apis/scheduling.x-k8s.io/v1alpha1/namespaces/ml/podgroups/resnet"


class GangApi(FakeApi):
    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        if path == GROUP_PATH:
            return {"metadata": {"name": "resnet"}, "spec": {"minMember": 3}, "status": {}}
        try:
            return await super().get(path, params=params, timeout=timeout)
        except NotFound:
            if path.startswith("/apis/scheduling.x-k8s.io/"):
                return {"items": [], "metadata": {}}  # the profile's PodGroup list
            raise


def gang_api() -> GangApi:
    nodes = [make_node().name("n1").capacity(cpu="4", memory="8Gi").obj()]
    pods = [
        make_pod().name(f"r-{i}").namespace("ml").scheduler("my-scheduler").label(LABEL, "resnet")
        for i in range(2)
    ]
    return GangApi(nodes, [pod.req(cpu="1").obj() for pod in pods], pdbs=[])


GANG_PROFILE = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection: {leaderElect: false}
profiles:
- schedulerName: my-scheduler
  plugins:
    multiPoint: {enabled: [{name: Coscheduling}]}
    queueSort: {disabled: [{name: PrioritySort}]}
"""


async def test_a_gang_member_gets_a_group_section(tmp_path: Path) -> None:
    path = tmp_path / "gang.yaml"
    path.write_text(GANG_PROFILE)
    ex = await run(gang_api(), config(tmp_path, f"--config={path}"), PodSource("ml", "r-0"))
    assert ex.group is not None
    assert ex.group.lacks == "2 of 3 members exist; the group waits until 3 do"
    assert ex.group.timeout.startswith("60s (Coscheduling's permitWaitingTimeSeconds")
    text = table(ex).splitlines()
    assert "group: PodGroup ml/resnet (scheduling.x-k8s.io/v1alpha1), minMember 3" in text
    assert text[-1].startswith("kubesched would choose n1")  # the decision stays last
    assert "needs --scheduler-url" not in text[-1]
    assert to_dict(ex)["group"]["lacks"] == ex.group.lacks


async def test_without_coscheduling_the_group_waits_for_nothing(tmp_path: Path) -> None:
    ex = await run(gang_api(), config(tmp_path), PodSource("ml", "r-0"))
    assert ex.group is not None
    assert ex.group.lacks.startswith("nothing kubesched waits for")
    assert ex.group.notes[0].startswith("profile my-scheduler does not enable Coscheduling")
    assert ex.group.timeout == ""


async def test_a_pod_of_no_group_has_none(tmp_path: Path) -> None:
    api = gang_api()
    api.pods.append(make_pod().name("solo").namespace("ml").scheduler("my-scheduler").obj())
    ex = await run(api, config(tmp_path), PodSource("ml", "solo"))
    assert ex.group is None
    assert to_dict(ex)["group"] is None


async def test_members_held_at_permit_use_their_nodes_room(tmp_path: Path) -> None:
    """n1 has 4 CPUs; r-1 (3 CPUs) waits at Permit there, so r-0 (2 CPUs) does not fit."""
    path = tmp_path / "gang.yaml"
    path.write_text(GANG_PROFILE)
    nodes = [make_node().name("n1").capacity(cpu="4", memory="8Gi").obj()]
    pods = [
        make_pod().name(f"r-{i}").uid(f"uid-r-{i}").namespace("ml").scheduler("my-scheduler")
        for i in range(3)
    ]
    objs = [p.label(LABEL, "resnet").req(cpu=cpu).obj() for p, cpu in zip(pods, "231", strict=True)]
    api = GangApi(nodes, objs, pdbs=[])
    held = WaitingPodRecord("ml", "r-1", "uid-r-1", "my-scheduler", "n1", ("Coscheduling",), 1, 9)

    async def read() -> object:
        return encode(WaitingPodList(leading=True, observed_at=5, items=(held,)))

    cfg = config(tmp_path, f"--config={path}")
    source = PermitSource(url="https://127.0.0.1:10259", read=read)
    ex = await explain_live(
        GetOnly(api),
        config=cfg,
        registry=build_registry(cfg),
        source=PodSource("ml", "r-0"),
        permit=source,
    )
    assert ex.feasible == ()
    assert ex.verdicts[0].rejection is not None
    assert ex.verdicts[0].rejection.reasons == ("Insufficient cpu",)
    assert any("holds 1 other pod(s) at Permit" in note for note in ex.notes)
    assert ex.group is not None
    assert ex.group.lacks == "1 of 3 fit (1 waiting at Permit, 0 bound); 2 more need room"
    # Without the view, the room looks free.
    plain = await run(api, cfg, PodSource("ml", "r-0"))
    assert plain.chosen == "n1"


async def test_the_scheduler_url_is_not_used_for_a_pod_of_no_group(tmp_path: Path) -> None:
    api = gang_api()
    api.pods.append(make_pod().name("solo").namespace("ml").scheduler("my-scheduler").obj())

    async def read() -> object:
        raise AssertionError("not read for a pod of no group")

    cfg = config(tmp_path)
    ex = await explain_live(
        GetOnly(api),
        config=cfg,
        registry=build_registry(cfg),
        source=PodSource("ml", "solo"),
        permit=PermitSource(url="https://127.0.0.1:10259", read=read),
    )
    assert "--scheduler-url is not used: the pod belongs to no PodGroup" in ex.notes
