"""explain_live over an in-memory API server that answers GETs only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.config import KubeSchedulerConfiguration, load_config
from kubesched.explain import (
    ExplainError,
    GetOnly,
    PodSource,
    ReadOnlyError,
    ReadOnlyHandle,
    build_snapshot,
    explain_live,
)
from kubesched.framework import DEFAULT_SPREADING
from kubesched.kube.errors import Forbidden, NotFound
from kubesched.server.components import build_registry
from kubesched.testing import make_node, make_pod

WORKLOAD_PATHS = frozenset(spec.path for spec in DEFAULT_SPREADING)


class FakeApi:
    """Pods and nodes by path; lists are paged two items at a time. Writes fail the test."""

    def __init__(
        self,
        nodes: list[dict[str, Any]],
        pods: list[dict[str, Any]],
        pdbs: list[dict[str, Any]] | None = None,
        namespaces: list[dict[str, Any]] | None = None,
        workloads: dict[str, list[dict[str, Any]]] | None = None,
        *,
        forbidden: tuple[str, ...] = (),
    ) -> None:
        self.forbidden = forbidden
        """Collections answering 403 (an identity lacking RBAC)."""
        self.namespaces = namespaces or []
        self.workloads = workloads or {}
        self.nodes = nodes
        self.pods = pods
        self.pdbs = pdbs
        self.requests: list[tuple[str, dict[str, str]]] = []

    async def get(
        self, path: str, *, params: dict[str, str] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        params = dict(params or {})
        self.requests.append((path, params))
        if path in self.forbidden:
            raise Forbidden(403, "Forbidden", "no", path=path)
        if path == "/api/v1/nodes":
            return self._page(self.nodes, params)
        if path == "/api/v1/namespaces":
            return self._page(self.namespaces, params)
        # Workloads, and DynamicResources' objects (none unless given).
        if path in WORKLOAD_PATHS or path.startswith("/apis/resource.k8s.io/v1/"):
            return self._page(self.workloads.get(path, []), params)
        if path == "/apis/policy/v1/poddisruptionbudgets":
            if self.pdbs is None:
                raise Forbidden(403, "Forbidden", "no", path=path)
            return self._page(self.pdbs, params)
        if path == "/api/v1/pods":
            assert params["fieldSelector"] == "status.phase!=Succeeded,status.phase!=Failed"
            live = [p for p in self.pods if p["status"]["phase"] not in ("Succeeded", "Failed")]
            return self._page(live, params)
        for pod in self.pods:
            meta = pod["metadata"]
            if path == f"/api/v1/namespaces/{meta['namespace']}/pods/{meta['name']}":
                return pod
        raise NotFound(404, "NotFound", "not found", path=path)

    @staticmethod
    def _page(items: list[dict[str, Any]], params: dict[str, str]) -> dict[str, Any]:
        start = int(params.get("continue") or 0)
        end = start + 2
        meta = {"continue": str(end)} if end < len(items) else {}
        return {"items": items[start:end], "metadata": meta}

    async def post(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("explain must not write")

    put = patch = delete = post


def config(tmp_path: Path, *flags: str) -> KubeSchedulerConfiguration:
    argv = ["--scheduler-name=my-scheduler", *flags]
    return load_config(argv, environ={}, namespace_file=tmp_path / "none").config


def cluster() -> FakeApi:
    nodes = [
        make_node().name("tainted").capacity(cpu="4", memory="8Gi").taint("k", "v").obj(),
        make_node().name("small").capacity(cpu="500m", memory="1Gi").obj(),
        make_node().name("busy").capacity(cpu="4", memory="8Gi").obj(),
        make_node().name("idle").capacity(cpu="4", memory="8Gi").obj(),
    ]
    pods = [
        make_pod().name("load").namespace("other").node("busy").req(cpu="2").phase("Running").obj(),
        # Finished pods hold nothing: this one would make "idle" too full if it counted.
        make_pod()
        .name("done")
        .namespace("other")
        .node("idle")
        .req(cpu="4")
        .phase("Succeeded")
        .obj(),
        make_pod().name("web").namespace("demo").scheduler("my-scheduler").req(cpu="1").obj(),
        make_pod().name("elsewhere").namespace("demo").req(cpu="1").obj(),
        make_pod().name("bound").namespace("demo").node("busy").phase("Running").obj(),
    ]
    return FakeApi(nodes, pods, pdbs=[])


async def run(api: FakeApi, cfg: KubeSchedulerConfiguration, source: PodSource) -> Any:
    return await explain_live(GetOnly(api), config=cfg, registry=build_registry(cfg), source=source)


async def test_explains_a_pending_pod_from_the_live_cluster(tmp_path: Path) -> None:
    api = cluster()
    ex = await run(api, config(tmp_path), PodSource("demo", "web"))
    assert ex.pod == "demo/web"
    assert not ex.hypothetical
    assert ex.num_nodes == 4
    verdicts = {v.node: v for v in ex.verdicts}
    assert not verdicts["tainted"].feasible
    assert not verdicts["small"].feasible
    assert ex.chosen == "idle"  # "busy" carries 2 CPUs of load; the finished pod is ignored
    paths = [path for path, _ in api.requests]
    assert paths[0] == "/api/v1/namespaces/demo/pods/web"
    assert paths.count("/api/v1/nodes") == 2  # paged
    assert all(params["limit"] == "500" for path, params in api.requests[1:])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("missing", "pod demo/missing not found"),
        ("bound", "pod demo/bound is not pending: it is bound to node busy (phase Running)"),
        ("elsewhere", "pod demo/elsewhere has spec.schedulerName 'default-scheduler'"),
    ],
)
async def test_one_line_errors(tmp_path: Path, name: str, expected: str) -> None:
    with pytest.raises(ExplainError) as raised:
        await run(cluster(), config(tmp_path), PodSource("demo", name))
    assert str(raised.value).startswith(expected)


async def test_a_hypothetical_pod_is_not_looked_up(tmp_path: Path) -> None:
    api = cluster()
    obj = make_pod().name("what-if").namespace("demo").scheduler("my-scheduler").req(cpu="3").obj()
    ex = await run(api, config(tmp_path), PodSource(obj=obj))
    assert ex.hypothetical
    assert ex.chosen == "idle"
    assert not any("/pods/" in path for path, _ in api.requests)  # the pod is not fetched


async def test_the_profiles_percentage_of_nodes_to_score_is_used(tmp_path: Path) -> None:
    cfg_file = tmp_path / "config.yaml"
    cfg_file.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "leaderElection: {leaderElect: false}\n"
        "percentageOfNodesToScore: 30\n"
        "profiles: [{schedulerName: my-scheduler}]\n"
    )
    cfg = load_config([f"--config={cfg_file}"], environ={}, namespace_file=tmp_path / "x").config
    ex = await run(cluster(), cfg, PodSource("demo", "web"))
    assert ex.sampling.percentage_of_nodes_to_score == 30


def test_get_only_hides_every_write() -> None:
    wrapped = GetOnly(cluster())
    for verb in ("post", "put", "patch", "delete"):
        assert not hasattr(wrapped, verb)


def test_snapshot_counts_bound_pods_only() -> None:
    nodes = [make_node().name("n").model()]
    pods = [
        make_pod().name("a").node("n").req(cpu="1").model(),
        make_pod().name("pending").req(cpu="1").model(),
    ]
    snapshot = build_snapshot(nodes, pods)
    info = snapshot.get("n")
    assert info is not None
    assert [p.name for p in info.pods.values()] == ["a"]


async def test_the_read_only_handle_refuses_to_bind_and_drops_events() -> None:
    handle = ReadOnlyHandle(build_snapshot([make_node().name("n").model()], []))
    pod = make_pod().name("p").model()
    with pytest.raises(ReadOnlyError, match="never writes to the cluster"):
        await handle.bind(pod, "n")
    handle.record_event(pod, event_type="Normal", reason="Scheduled", action="Binding", note="x")
    assert handle.dropped_events == [("default/p", "Scheduled", "x")]
    assert not handle.has_nominated_pods()


async def test_pods_nominated_for_this_scheduler_hold_their_room(tmp_path: Path) -> None:
    api = cluster()
    for name, scheduler in (("held", "my-scheduler"), ("theirs", "default-scheduler")):
        obj = make_pod().name(name).namespace("demo").scheduler(scheduler).priority(100)
        body = obj.req(cpu="3500m").obj()
        body["status"]["nominatedNodeName"] = "idle" if name == "held" else "busy"
        api.pods.append(body)
    ex = await run(api, config(tmp_path), PodSource("demo", "web"))
    idle = next(v for v in ex.verdicts if v.node == "idle")
    assert idle.rejection is not None
    assert idle.rejection.message == "Insufficient cpu"
    assert ex.chosen == "busy"  # the nomination of another scheduler's pod does not count


async def test_namespace_selector_sees_the_namespaces_labels(tmp_path: Path) -> None:
    """Parity case `explain-namespace-selector-labels.yaml`: a pod-affinity namespaceSelector
    on `env: prod` selects team-a, so the pod fits next to team-a's db pod (n1), as both
    schedulers decide."""
    nodes = [make_node().name(n).capacity(cpu="4", memory="8Gi").obj() for n in ("n1", "n2")]
    db = make_pod().name("e-db").namespace("team-a").label("app", "db").node("n1")
    incoming = make_pod().name("p-nss").namespace("default").scheduler("my-scheduler").obj()
    incoming["spec"]["affinity"] = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"app": "db"}},
                    "namespaceSelector": {"matchLabels": {"env": "prod"}},
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    namespaces = [
        {"metadata": {"name": "team-a", "labels": {"env": "prod"}}},
        {"metadata": {"name": "default", "labels": {}}},
    ]
    api = FakeApi(nodes, [db.phase("Running").obj(), incoming], pdbs=[], namespaces=namespaces)
    ex = await run(api, config(tmp_path), PodSource("default", "p-nss"))
    assert [v.node for v in ex.verdicts if v.feasible] == ["n1"]
    assert ex.chosen == "n1"


async def test_unreadable_built_in_resources_are_noted_and_read_as_none(tmp_path: Path) -> None:
    """Namespaces, Services and PDBs explain may not list: each is noted; a namespaceSelector
    then sees each namespace with only its name label (so selecting by it still works)."""
    nodes = [make_node().name(n).capacity(cpu="4", memory="8Gi").obj() for n in ("n1", "n2")]
    db = make_pod().name("e-db").namespace("team-a").label("app", "db").node("n1")
    incoming = make_pod().name("p").namespace("default").scheduler("my-scheduler").obj()
    by_name = {"matchLabels": {"kubernetes.io/metadata.name": "team-a"}}
    term = {"labelSelector": {"matchLabels": {"app": "db"}}, "namespaceSelector": by_name}
    incoming["spec"]["affinity"] = {
        "podAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {**term, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    forbidden = ("/api/v1/namespaces", "/api/v1/services")
    api = FakeApi(nodes, [db.phase("Running").obj(), incoming], forbidden=forbidden)
    ex = await run(api, config(tmp_path), PodSource("default", "p"))
    assert ex.chosen == "n1"
    assert {note for note in ex.notes if note.startswith("cannot list")} == {
        (
            "cannot list namespaces (forbidden): a namespaceSelector sees each namespace with only"
            " its kubernetes.io/metadata.name label"
        ),
        "cannot list /api/v1/services (forbidden): default spreading ignores them",
        (
            "cannot list PodDisruptionBudgets (forbidden): preemption is explained as if there"
            " were none"
        ),
    }


async def test_default_spreading_reads_services(tmp_path: Path) -> None:
    """Default topology spreading takes its selector from the Services selecting the pod."""
    nodes = [make_node().name(n).capacity(cpu="4", memory="8Gi").obj() for n in ("a", "b")]
    web = [
        make_pod().name(f"w{i}").label("app", "web").node("a").phase("Running").obj()
        for i in range(3)
    ]
    incoming = make_pod().name("new").label("app", "web").scheduler("my-scheduler").obj()
    service = {
        "metadata": {"namespace": "default", "name": "web"},
        "spec": {"selector": {"app": "web"}},
    }
    api = FakeApi(nodes, [*web, incoming], pdbs=[], workloads={"/api/v1/services": [service]})
    ex = await run(api, config(tmp_path), PodSource("default", "new"))
    assert ex.chosen == "b"
    spread = {
        v.node: s.normalized
        for v in ex.verdicts
        for s in v.scores
        if s.plugin == "PodTopologySpread"
    }
    assert spread["b"] > spread["a"]
