"""Seeded random scenarios for the topology-gang differential
(tests/e2e/test_topology_differential.py).

    scenario = generate(seed)
    scenario.nodes      # (Node, ...): cpu in millicores, memory in MiB, zone and rack labels
    scenario.prebound   # (Prebound, ...): pods bound by nodeName before any gang
    scenario.gangs      # (Gang, ...) in the order they are submitted, one at a time

Two or three zones of one to three racks each, one to three nodes a rack, of varying cpu and
memory; now and then a node without a rack label, a rack of one small node (a domain too
small for most gangs). A few pods already bound. Then three to five PodGroups, each with
`schedulingConstraints.topology` naming the rack key (mostly), the zone key, or now and then
a key no node carries; `minCount` from 2 to 5 and as many members, of one size or of
different sizes, and now and then one or two members more than `minCount` (drawn from a
second stream of the seed, so the gangs without extras are the ones the seed always had).
Some fit one domain only, some several, some none. Plain data: the same scenario is created
for each scheduler, and the checker (harness/topology_check.py) reads it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

RACK_KEY = "e2e.kubesched.io/rack"
ZONE_KEY = "e2e.kubesched.io/zone"
MISSING_KEY = "e2e.kubesched.io/block"
"""A key no node of a scenario carries (the gang's members say `no feasible placements`)."""
NODE_CPUS = (1000, 2000, 2000, 3000, 4000, 4000, 6000, 8000)
NODE_MEMORIES = (2048, 4096, 8192, 16384)
MEMBER_CPUS = (1000, 1000, 1500, 2000, 3000)
MEMBER_MEMORIES = (512, 1024, 2048, 4096)
EXTRA_CHANCE = 0.4
"""How often a gang has one or two members more than `minCount`."""


@dataclass(frozen=True)
class Amount:
    """cpu in millicores, memory in MiB."""

    cpu: int
    memory: int

    def as_list(self) -> dict[str, str]:
        """A Kubernetes ResourceList."""
        return {"cpu": f"{self.cpu}m", "memory": f"{self.memory}Mi"}


@dataclass(frozen=True)
class Node:
    """A node and its labels (a missing rack label is left out, not empty)."""

    name: str
    allocatable: Amount
    labels: tuple[tuple[str, str], ...]

    def label(self, key: str) -> str | None:
        """The value of label `key`, or None."""
        return dict(self.labels).get(key)


@dataclass(frozen=True)
class Prebound:
    """A pod bound to `node` by `spec.nodeName` (no scheduler involved)."""

    name: str
    node: str
    request: Amount


@dataclass(frozen=True)
class Gang:
    """A PodGroup `name` within one domain of `key`: `min_count` of its `members` at least."""

    name: str
    key: str
    members: tuple[Amount, ...]
    min_count: int


@dataclass(frozen=True)
class Scenario:
    """One seed's cluster and gangs."""

    seed: int
    nodes: tuple[Node, ...]
    prebound: tuple[Prebound, ...]
    gangs: tuple[Gang, ...]


def generate(seed: int) -> Scenario:
    """The scenario of `seed` (the same seed always gives the same scenario)."""
    rng = random.Random(seed)
    nodes = _nodes(rng)
    prebound = _prebound(rng, nodes)
    return Scenario(seed, nodes, prebound, _gangs(rng, random.Random(f"extra-{seed}")))


def _nodes(rng: random.Random) -> tuple[Node, ...]:
    nodes = []
    for zone in range(rng.randint(2, 3)):
        for rack in range(rng.randint(1, 3)):
            small = rng.random() < 0.2
            for index in range(1 if small else rng.randint(1, 3)):
                name = f"z{zone}-r{rack}-n{index}"
                cpu = 1000 if small else rng.choice(NODE_CPUS)
                labels = [(ZONE_KEY, f"zone-{zone}")]
                if rng.random() >= 0.08:
                    labels.append((RACK_KEY, f"rack-{zone}-{rack}"))
                amount = Amount(cpu, rng.choice(NODE_MEMORIES))
                nodes.append(Node(name, amount, tuple(labels)))
    return tuple(nodes)


def _prebound(rng: random.Random, nodes: tuple[Node, ...]) -> tuple[Prebound, ...]:
    bound = []
    free = {node.name: node.allocatable for node in nodes}
    for index in range(rng.randint(0, 4)):
        node = rng.choice(nodes)
        room = free[node.name]
        cpu = min(room.cpu, rng.choice((500, 1000, 2000)))
        memory = min(room.memory, rng.choice((256, 1024)))
        if cpu and memory:
            free[node.name] = Amount(room.cpu - cpu, room.memory - memory)
            bound.append(Prebound(f"pre-{index}", node.name, Amount(cpu, memory)))
    return tuple(bound)


def _gangs(rng: random.Random, extras: random.Random) -> tuple[Gang, ...]:
    gangs = []
    for index in range(rng.randint(3, 5)):
        draw = rng.random()
        key = RACK_KEY if draw < 0.65 else ZONE_KEY if draw < 0.93 else MISSING_KEY
        size = rng.randint(2, 5)
        count = size
        if rng.random() < 0.5:
            members = (Amount(rng.choice(MEMBER_CPUS), rng.choice(MEMBER_MEMORIES)),) * count
            more = (members[0],) * _extra(extras)
        else:
            members = tuple(
                Amount(rng.choice(MEMBER_CPUS), rng.choice(MEMBER_MEMORIES)) for _ in range(count)
            )
            more = tuple(
                Amount(extras.choice(MEMBER_CPUS), extras.choice(MEMBER_MEMORIES))
                for _ in range(_extra(extras))
            )
        gangs.append(Gang(f"gang-{index}", key, members + more, size))
    return tuple(gangs)


def _extra(extras: random.Random) -> int:
    """How many members beyond `minCount` (0, 1 or 2)."""
    return extras.randint(1, 2) if extras.random() < EXTRA_CHANCE else 0
