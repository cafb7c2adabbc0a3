"""Seeded random scenarios for the quota differential (tests/e2e/test_quota_differential.py).

    scenario = generate(seed)
    scenario.nodes        # (Node, ...): cpu in millicores, memory in MiB, GPUs
    scenario.quotas       # (Quota, ...): one ElasticQuota per namespace, min <= max
    scenario.free         # a namespace without a quota, or ""
    scenario.priorities   # {"low": 10, "mid": 100, "high": 1000}
    scenario.pods         # (PodSpec, ...) in the order they are created

A cluster of two or three nodes with cpu, memory and sometimes `nvidia.com/gpu`; two or
three namespaces with an ElasticQuota each (`min` and `max` naming cpu, memory and usually
the GPUs; now and then a quota without `min`, without `max`, or without GPUs in it) and,
every other seed,
one namespace without a quota. The pods come in two waves: first mostly from one namespace
(it fills its `min` and borrows what the others leave idle, until its `max` or the sum of
the `min`s refuses it), then from the others (they take their guarantee back by
preemption), with random priorities. Everything is plain data: the same scenario is
created for each scheduler, and the reference model (harness/quota_model.py) reads it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

GPU = "nvidia.com/gpu"
MIB = 2**20
PRIORITIES = {"low": 10, "mid": 100, "high": 1000}
"""PriorityClass values by their short name (the classes get a per-test suffix)."""
NEVER = "-never"
"""The suffix of the same classes with `preemptionPolicy: Never` (`zero-never`: value 0)."""


def class_names() -> dict[str, tuple[int, bool]]:
    """Every PriorityClass a scenario may use: short name -> (value, preemption Never)."""
    classes = {short: (value, False) for short, value in PRIORITIES.items()}
    for short, value in {"zero": 0, **PRIORITIES}.items():
        classes[short + NEVER] = (value, True)
    return classes


@dataclass(frozen=True)
class Amount:
    """cpu in millicores, memory in MiB, GPUs."""

    cpu: int
    memory: int
    gpu: int = 0

    def as_list(self, *, gpu: bool = True) -> dict[str, str]:
        """A Kubernetes ResourceList (GPUs only when `gpu`, even at 0; memory 0 left out)."""
        listed = {"cpu": f"{self.cpu}m"}
        if self.memory:
            listed["memory"] = f"{self.memory}Mi"
        if gpu:
            listed[GPU] = str(self.gpu)
        return listed


@dataclass(frozen=True)
class Node:
    name: str
    allocatable: Amount


@dataclass(frozen=True)
class Quota:
    """An ElasticQuota of `namespace`: `min` None leaves it out (guarantees nothing), `max`
    None too (unlimited);
        `with_gpu` False leaves the GPUs out of both (unguaranteed, unlimited)."""

    namespace: str
    min: Amount | None
    max: Amount | None
    with_gpu: bool = True

    def spec(self) -> dict[str, dict[str, str]]:
        spec = {}
        if self.max is not None:
            spec["max"] = self.max.as_list(gpu=self.with_gpu)
        if self.min is not None:
            spec["min"] = self.min.as_list(gpu=self.with_gpu)
        return spec


@dataclass(frozen=True)
class PodSpec:
    name: str
    namespace: str
    request: Amount
    priority_class: str = ""
    """A key of PRIORITIES, or "" (priority 0)."""
    never: bool = False
    """`preemptionPolicy: Never`."""

    @property
    def priority(self) -> int:
        return PRIORITIES.get(self.priority_class, 0)

    @property
    def class_name(self) -> str:
        """The short name of its PriorityClass, "" for none (the API server refuses a
        preemptionPolicy that differs from the class's, so Never comes with a class)."""
        if self.never:
            return (self.priority_class or "zero") + NEVER
        return self.priority_class


@dataclass(frozen=True)
class Scenario:
    seed: int
    nodes: tuple[Node, ...]
    quotas: tuple[Quota, ...]
    free: str
    pods: tuple[PodSpec, ...]

    @property
    def namespaces(self) -> tuple[str, ...]:
        return tuple(q.namespace for q in self.quotas) + ((self.free,) if self.free else ())


def generate(seed: int, *, pods: int | None = None) -> Scenario:
    """The scenario of `seed` (`pods`: how many pods, else 9 to 12)."""
    rng = random.Random(seed)
    nodes = _nodes(rng)
    total = Amount(
        sum(n.allocatable.cpu for n in nodes),
        sum(n.allocatable.memory for n in nodes),
        sum(n.allocatable.gpu for n in nodes),
    )
    names = ("team-a", "team-b", "team-c")[: rng.choice((2, 2, 3))]
    quotas = tuple(_quota(rng, name, total, len(names)) for name in names)
    free = "no-quota" if rng.random() < 0.5 else ""
    count = pods if pods is not None else rng.randint(9, 12)
    return Scenario(seed, nodes, quotas, free, _pods(rng, quotas, free, total, count))


def _nodes(rng: random.Random) -> tuple[Node, ...]:
    """Nodes of different sizes (fewer ties between their scores)."""
    gpus = rng.choice((0, 2, 2, 4))
    count = rng.choice((2, 3, 3))
    cpus = rng.sample((4000, 5500, 7000, 9000), count)
    memories = rng.sample((7168, 10240, 13312, 19456), count)
    return tuple(Node(f"qd-n{i + 1}", Amount(cpus[i], memories[i], gpus)) for i in range(count))


def _share(rng: random.Random, total: int, parts: int, unit: int) -> int:
    """A random guarantee of about `total / parts` (70-130 %), in `unit`s."""
    return max(0, int(total * rng.uniform(0.7, 1.3) / parts) // unit * unit)


def _quota(rng: random.Random, namespace: str, total: Amount, parts: int) -> Quota:
    low = Amount(
        _share(rng, total.cpu, parts, 500),
        _share(rng, total.memory, parts, 512),
        _share(rng, total.gpu, parts, 1),
    )
    high = Amount(
        low.cpu + rng.choice((0, 1000, 2000, 4000)),
        low.memory + rng.choice((0, 2048, 8192)),
        low.gpu + rng.choice((0, 1, 2)),
    )
    minimum = None if rng.random() < 0.1 else low
    maximum = None if rng.random() < 0.05 else high
    return Quota(namespace, minimum, maximum, with_gpu=total.gpu == 0 or rng.random() > 0.15)


def _pods(
    rng: random.Random, quotas: tuple[Quota, ...], free: str, total: Amount, count: int
) -> tuple[PodSpec, ...]:
    borrower = quotas[0].namespace
    others = [q.namespace for q in quotas[1:]] + ([free] if free else [])
    made = []
    for i in range(count):
        first_wave = i < count * 3 // 5
        namespace = borrower if first_wave and rng.random() < 0.9 else rng.choice(others)
        gpu = rng.choice((0, 0, 1, 2)) if total.gpu else 0
        memory = rng.choice((0, 256, 512, 512, 1024, 1024, 2048, 2048))
        request = Amount(rng.choice((500, 1000, 1500, 2000, 2000, 3000)), memory, gpu)
        wave = ("", "low", "low", "mid") if first_wave else ("", "low", "mid", "high", "high")
        never = rng.random() < 0.08
        made.append(PodSpec(f"p{i:02d}", namespace, request, rng.choice(wave), never))
    return tuple(made)
