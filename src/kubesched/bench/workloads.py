"""The benchmark's workloads: which nodes to create and which pods, modelled on the
templates of kube-scheduler's scheduler_perf (node: 4 CPU, 32Gi, 110 pods, Ready, no
taints; pod: one `pause` container requesting 100m CPU and 500Mi, limits equal).

    basic        N plain nodes, I initial + M measured plain pods
    constrained  a quarter of the nodes tainted `dedicated=infra:NoSchedule`, nodes spread
                 over three zones; measured pods are a fixed mix of plain pods, pods that
                 tolerate the taint and require the infra nodes, pods that require two of
                 the zones (and prefer one), and resource-heavy pods (1 CPU, 4Gi)
    large        basic at 5000 nodes, 10000 measured pods
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kubesched.bench.templates import PodTemplate
from kubesched.testing import make_node, make_pod

if TYPE_CHECKING:
    from kubesched.bench.script import Script

ZONES = ("zone-a", "zone-b", "zone-c")
ZONE_LABEL = "topology.kubernetes.io/zone"
INFRA_LABEL = "dedicated"
INIT_NS = "bench-init"
MEASURED_NS = "bench-measured"
# Out of every 20 measured pods in `constrained`: which kind each one is.
_CONSTRAINED_MIX = ("plain",) * 10 + ("infra",) * 3 + ("zonal",) * 4 + ("heavy",) * 3


@dataclass(frozen=True, slots=True)
class PodGroup:
    """`count` pods from one template in one namespace, named `prefix` + index; with
    `spread`, pod i goes to namespace `spread[i % len(spread)]` instead (a name may repeat
    to weight it), and the names stay unique across namespaces."""

    template: PodTemplate
    count: int
    namespace: str
    prefix: str
    spread: tuple[str, ...] = ()

    def pods(self, scheduler_name: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """(POST path, body) of every pod of the group."""
        for i in range(self.count):
            namespace = self.namespace_of(i)
            body = self.template(f"{self.prefix}{i}", namespace, scheduler_name)
            yield f"/api/v1/namespaces/{namespace}/pods", body

    def namespace_of(self, index: int) -> str:
        """The namespace of pod `index`."""
        return self.spread[index % len(self.spread)] if self.spread else self.namespace

    def namespaces(self) -> tuple[str, ...]:
        """Every namespace the group's pods go to, in order."""
        return tuple(dict.fromkeys(self.spread)) if self.spread else (self.namespace,)


@dataclass(frozen=True, slots=True)
class Churn:
    """scheduler_perf's `churn` op during the measured phase. `create`: one object of each
    template every `interval` seconds, never deleted; `recreate`: every `interval`, the
    objects of the previous tick are deleted and `number` of each created again; `delete`
    (upstream's `deletePods` op in the background): the pods of `namespace`, as listed when
    it starts, deleted one every `interval` with their own grace period (no templates)."""

    mode: str
    templates: tuple[str, ...]
    """Of `pod:<template name>`, `node`, `service` (see `bench.churn`)."""
    interval: float
    namespace: str
    number: int = 1
    """`recreate`: objects of each template a tick (upstream's `number`)."""


@dataclass(frozen=True, slots=True)
class DraSetup:
    """scheduler_perf's DRA ops before the pods: `objects` (ResourceSlices, the DeviceClass,
    ResourceClaims, ResourceClaimTemplates, created in order before the contender starts),
    then the claims of namespace `allocate` allocated directly (upstream's
    `allocResourceClaims`: each on a node in random order that has a free device)."""

    objects: Callable[[], Iterator[tuple[str, dict[str, Any]]]]
    allocate: str = ""


@dataclass(frozen=True, slots=True)
class Workload:
    """How many objects to create, and how the i-th node and every pod look."""

    name: str
    nodes: int
    node_factory: Callable[[int], dict[str, Any]]
    initial: tuple[PodGroup, ...]
    measured: PodGroup
    namespaces: tuple[str, ...] = ()
    churn: Churn | None = None
    ceiling: bool = True
    """Whether the null binder can place these pods (it cannot preempt)."""
    priority_classes: tuple[tuple[str, int], ...] = ()
    note: str = ""
    """How this differs from upstream's variant (shrunk pod counts, ...)."""
    dra: DraSetup | None = None
    """DRA objects; with them the benchmark runs kube-controller-manager's resourceclaim
    controller (it makes each pod's claims from their templates)."""
    steady: float = 0.0
    """> 0: upstream's `steadyState` createPods for this many seconds: `measured.count`
    pods are kept pending, each bound pod deleted and replaced by a new one."""
    labelled_namespaces: tuple[str, ...] = ()
    """Namespaces made from upstream's `namespace-with-labels.yaml` (`team: devops`, what
    the `*-ns-selector` pods' namespace selectors select); the others have no labels."""
    objects: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(POST path, body) of upstream's `createAny` objects (a Service, ...), created after
    the nodes, before the contender starts."""
    plugin_config: tuple[dict[str, Any], ...] = ()
    """The profile's `pluginConfig`, for a test case with upstream's own scheduler config
    (`schedulerConfigPath`); both schedulers read it."""
    plugins: Mapping[str, Any] | None = None
    """The profile's `plugins` (a case that enables an out-of-tree plugin); None: the
    schedulers' defaults."""
    quotas: tuple[dict[str, Any], ...] = ()
    """ElasticQuota objects (`scheduling.x-k8s.io/v1alpha1`): with them the benchmark
    installs scheduler-plugins' pinned ElasticQuota CRD and creates them after the nodes,
    before the contender starts, and checks that no quota's `max` was exceeded."""
    topologies: Callable[[int], dict[str, Any]] | None = None
    """Node i's NodeResourceTopology object: with it the benchmark installs the CRD and
    creates the objects after the nodes, before the contender starts, and checks that some
    single NUMA zone holds each bound measured pod (`numa_setup`)."""
    unsupported: tuple[tuple[str, str], ...] = ()
    """(contender, why) for contenders that cannot run this workload (skipped)."""
    arrivals: tuple[float, ...] = ()
    """Seconds after the measured phase starts at which each measured pod is created (a
    trace's recorded times, `bench.trace_workload`); empty: as fast as possible, or at
    `BenchSettings.create_rate`, which also overrides these."""
    unwaited: tuple[PodGroup, ...] = ()
    """Pods created after `initial` is bound, just before the measured phase, never waited
    for (upstream's `skipWaitToCompletion`: gated pods, pods deleted later)."""
    attempted_barrier: bool = False
    """Wait until every `unwaited` pod was attempted before the measured phase (upstream's
    `barrier` op with `stageRequirement: Attempted`, `bench.barrier`)."""
    script: Script | None = None
    """A case that is a sequence of ops (`bench.script`): its steps replace the creation
    of `measured`, whose count and namespaces say which pods the run measures."""
    feature_gates: tuple[str, ...] = ()
    """Feature gates on in kube-apiserver and both schedulers (upstream's `featureGates`,
    `bench.gates`)."""

    @property
    def initial_pods(self) -> int:
        return sum(group.count for group in self.initial)

    @property
    def pods(self) -> int:
        return self.measured.count

    def all_namespaces(self) -> list[str]:
        """Every namespace the workload's pods and churn objects live in, in order."""
        names = [
            *self.namespaces,
            *self.labelled_namespaces,
            *(g.namespace for g in self.unwaited),
            *(ns for g in self.initial for ns in g.namespaces()),
            *self.measured.namespaces(),
        ]
        if self.churn is not None:
            names.append(self.churn.namespace)
        return list(dict.fromkeys(names))

    def node(self, index: int) -> dict[str, Any]:
        return self.node_factory(index)


def plain_node(index: int) -> dict[str, Any]:
    """scheduler_perf's node template."""
    return make_node().name(f"node-{index}").obj()


def constrained_node(index: int) -> dict[str, Any]:
    builder = make_node().name(f"node-{index}").label(ZONE_LABEL, ZONES[index % len(ZONES)])
    if index % 4 == 3:
        builder.label(INFRA_LABEL, "infra").taint(INFRA_LABEL, "infra", "NoSchedule")
    return builder.obj()


def pod_object(name: str, namespace: str, scheduler_name: str, kind: str) -> dict[str, Any]:
    """scheduler_perf's pod template (requests = limits), varied by `kind`."""
    cpu, memory = ("1", "4Gi") if kind == "heavy" else ("100m", "500Mi")
    builder = make_pod().name(name).namespace(namespace).scheduler(scheduler_name)
    builder.req(cpu=cpu, memory=memory)
    if kind == "infra":
        builder.toleration(INFRA_LABEL, "infra", effect="NoSchedule")
        builder.required_node_affinity(INFRA_LABEL, "In", ["infra"])
    elif kind == "zonal":
        builder.required_node_affinity(ZONE_LABEL, "In", list(ZONES[:2]))
        builder.preferred_node_affinity(10, ZONE_LABEL, "In", [ZONES[0]])
    pod = builder.obj()
    pod["metadata"].pop("uid", None)  # the API server assigns it
    container = pod["spec"]["containers"][0]
    container["resources"]["limits"] = dict(container["resources"]["requests"])
    return pod


def _kind_template(kind: Callable[[int], str]) -> PodTemplate:
    def template(name: str, namespace: str, scheduler_name: str) -> dict[str, Any]:
        index = int(name.rsplit("-", 1)[-1])
        return pod_object(name, namespace, scheduler_name, kind(index))

    return template


def _plain(_index: int) -> str:
    return "plain"


def _mixed(index: int) -> str:
    return _CONSTRAINED_MIX[index % len(_CONSTRAINED_MIX)]


def make_workload(
    name: str, *, nodes: int | None = None, initial_pods: int | None = None, pods: int | None = None
) -> Workload:
    """A named workload with its defaults, each count overridable."""
    defaults = {
        "basic": (1000, 1000, 5000),
        "constrained": (1000, 1000, 5000),
        "large": (5000, 1000, 10000),
    }
    if name not in defaults:
        raise ValueError(f"unknown workload {name!r}; choose one of {', '.join(defaults)}")
    n, i, m = defaults[name]
    kind = _mixed if name == "constrained" else _plain
    initial = PodGroup(
        _kind_template(_plain), i if initial_pods is None else initial_pods, INIT_NS, "init-"
    )
    measured = PodGroup(_kind_template(kind), m if pods is None else pods, MEASURED_NS, "pod-")
    return Workload(
        name=name,
        nodes=n if nodes is None else nodes,
        node_factory=constrained_node if name == "constrained" else plain_node,
        initial=(initial,),
        measured=measured,
    )


WORKLOADS = ("basic", "constrained", "large")
