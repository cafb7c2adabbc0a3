"""Reading a pod's group: the PodGroup of either API (plain GETs), its members among the
listed pods, and what the scheduler holds at Permit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubesched.apis.waitingpods import PermitViewError, WaitingPodList, WaitingPodRecord, encode
from kubesched.config import load_config
from kubesched.explain.group_live import PermitSource, read_group, read_permit
from kubesched.explain.group_report import PermitView
from kubesched.kube.errors import Forbidden, NotFound
from kubesched.model import Pod
from kubesched.testing import make_pod
from tests.unit.explain.group_fakes import NOW, URL

LABEL = "scheduling.x-k8s.io/pod-group"
COSCHED = "/apis/scheduling.x-k8s.io/v1alpha1"
NATIVE = "/apis/scheduling.k8s.io/v1beta1"
SERVED = {"resources": [{"name": "podgroups"}]}


class Objects:
    """GET by path; anything else is NotFound (or Forbidden, for `forbidden` paths)."""

    def __init__(self, objects: dict[str, dict[str, Any]], forbidden: tuple[str, ...] = ()) -> None:
        self.objects = objects
        self.forbidden = forbidden

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        if path in self.forbidden:
            raise Forbidden(403, "Forbidden", "no", path=path)
        if path not in self.objects:
            raise NotFound(404, "NotFound", "not found", path=path)
        return self.objects[path]


def profile(tmp_path: Path, *flags: str) -> Any:
    argv = ["--scheduler-name=gang", *flags]
    return load_config(argv, environ={}, namespace_file=tmp_path / "none").config.profiles[0]


def member(name: str, **kw: Any) -> Pod:
    pod = make_pod().name(name).namespace("ml").uid(f"uid-{name}").scheduler("gang")
    pod = pod.label(LABEL, "resnet")
    if kw.get("node"):
        pod = pod.node(kw["node"])
    if kw.get("gate"):
        pod = pod.scheduling_gate(kw["gate"])
    obj = pod.obj()
    if kw.get("failure"):
        obj["status"]["conditions"] = [
            {"type": "PodScheduled", "status": "False", "message": kw["failure"]}
        ]
    return Pod.from_json(obj)


def podgroup(spec: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"metadata": {"name": "resnet", "namespace": "ml"}, "spec": spec, "status": status or {}}


def held(*names: str, leading: bool = True) -> PermitSource:
    records = tuple(
        WaitingPodRecord("ml", n, f"uid-{n}", "gang", "n1", ("Coscheduling",), NOW - 5, NOW + 25)
        for n in names
    )
    other = WaitingPodRecord("x", "other", "uid-other", "gang", "n1", (), NOW, NOW)

    async def read() -> object:
        return encode(WaitingPodList(leading, NOW, (*records, other)))

    return PermitSource(url=URL, read=read)


async def test_a_coscheduling_group_with_its_members_and_the_permit_view(tmp_path: Path) -> None:
    api = Objects(
        {
            f"{COSCHED}/namespaces/ml/podgroups/resnet": podgroup(
                {"minMember": 4}, {"phase": "Scheduling", "scheduled": 1, "running": 0}
            )
        }
    )
    pods = [
        member("r-0", node="n2"),
        member("r-1"),
        member("r-2", gate="quota"),
        member("r-3", failure="0/2 nodes are available: 2 Insufficient cpu."),
        make_pod().name("stranger").namespace("ml").model(),
    ]
    report = await read_group(
        api,
        pods[1],
        pods,
        profile=profile(tmp_path),
        enabled={"Coscheduling"},
        view=await read_permit(held("r-1")),
    )
    assert report is not None
    assert (report.key, report.min_field, report.min_count) == ("ml/resnet", "minMember", 4)
    assert report.timeout == "60s (Coscheduling's permitWaitingTimeSeconds; the PodGroup sets none)"
    assert report.status == (("phase", "Scheduling"), ("scheduled", "1"), ("running", "0"))
    assert [(m.name, m.state) for m in report.members] == [
        ("r-0", "bound"),
        ("r-1", "waiting at Permit"),
        ("r-2", "gated"),
        ("r-3", "pending"),
    ]
    assert report.members[3].last_failure.startswith("0/2 nodes")
    assert [r.name for r in report.permit.held] == ["r-1"]  # not the other group's pod
    assert report.permit.known
    assert report.notes == ()


async def test_coscheduling_not_enabled_and_the_group_missing(tmp_path: Path) -> None:
    pod = member("r-0")
    api = Objects({COSCHED: SERVED})
    report = await read_group(
        api, pod, [pod], profile=profile(tmp_path), enabled=(), view=PermitView()
    )
    assert report is not None
    assert not report.found
    assert report.notes[0].startswith("profile gang does not enable Coscheduling")
    assert not report.permit.url


async def test_the_crd_not_installed_or_forbidden_is_one_line(tmp_path: Path) -> None:
    pod = member("r-0")
    report = await read_group(
        Objects({}), pod, [pod], profile=profile(tmp_path), enabled=(), view=PermitView()
    )
    assert report is not None
    assert report.problem == (
        "the API server does not serve scheduling.x-k8s.io/v1alpha1 PodGroups, so PodGroup "
        "ml/resnet cannot be read: install the PodGroup CRD (kubesched manifests --with-crds)"
    )
    path = f"{COSCHED}/namespaces/ml/podgroups/resnet"
    report = await read_group(
        Objects({}, forbidden=(path,)),
        pod,
        [pod],
        profile=profile(tmp_path),
        enabled=(),
        view=PermitView(),
    )
    assert report is not None
    assert report.problem.startswith("cannot read PodGroup ml/resnet (forbidden): grant get on")


def native_member(name: str, node: str = "") -> Pod:
    obj = make_pod().name(name).namespace("ml").uid(f"uid-{name}").scheduler("gang").obj()
    obj["spec"]["schedulingGroup"] = {"podGroupName": "train"}
    if node:
        obj["spec"]["nodeName"] = node
    return Pod.from_json(obj)


async def test_a_native_podgroup_is_read_as_a_plain_object(tmp_path: Path) -> None:
    condition = {
        "type": "PodGroupInitiallyScheduled",
        "status": "False",
        "reason": "Unschedulable",
        "message": "minCount (3) cannot be satisfied",
    }
    obj = podgroup({"schedulingPolicy": {"gang": {"minCount": 3}}}, {"conditions": [condition]})
    api = Objects({f"{NATIVE}/namespaces/ml/podgroups/train": obj})
    pods = [native_member("t-0"), native_member("t-1", node="n1")]
    report = await read_group(
        api, pods[0], pods, profile=profile(tmp_path), enabled={"NodeName"}, view=PermitView()
    )
    assert report is not None
    assert (report.api_version, report.min_field, report.min_count) == (
        "scheduling.k8s.io/v1beta1",
        "minCount",
        3,
    )
    assert report.conditions == (
        "PodGroupInitiallyScheduled=False (Unschedulable): minCount (3) cannot be satisfied",
    )
    assert [(m.name, m.state) for m in report.members] == [("t-0", "pending"), ("t-1", "bound")]
    assert report.notes[0].startswith("profile gang does not enable GangScheduling")


async def test_the_native_api_not_served(tmp_path: Path) -> None:
    pod = native_member("t-0")
    report = await read_group(
        Objects({}), pod, [pod], profile=profile(tmp_path), enabled=(), view=PermitView()
    )
    assert report is not None
    assert report.problem.startswith(
        "the API server does not serve scheduling.k8s.io/v1beta1 PodGroups"
    )
    assert "--runtime-config=scheduling.k8s.io/v1beta1=true" in report.problem


async def test_a_pod_of_no_group_has_no_section(tmp_path: Path) -> None:
    pod = make_pod().name("solo").model()
    assert (
        await read_group(
            Objects({}), pod, [pod], profile=profile(tmp_path), enabled=(), view=PermitView()
        )
        is None
    )


async def test_the_permit_view_failing_or_on_a_standby(tmp_path: Path) -> None:
    api = Objects({f"{COSCHED}/namespaces/ml/podgroups/resnet": podgroup({"minMember": 2})})
    pod = member("r-0")

    async def unreachable() -> object:
        raise PermitViewError("cannot reach the scheduler at https://x:1 (refused)")

    for source, error, leading in (
        (PermitSource(url=URL, read=unreachable), "cannot reach the scheduler", False),
        (held("r-0", leading=False), "", False),
    ):
        report = await read_group(
            api, pod, [pod], profile=profile(tmp_path), enabled=(), view=await read_permit(source)
        )
        assert report is not None
        assert report.permit.error.startswith(error)
        assert (report.permit.leading, report.permit.known) == (leading, False)
