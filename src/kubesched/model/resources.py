"""Resource vectors as kube-scheduler's `framework.Resource` (CPU in millicores)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kubesched.model.quantity import milli_value, value

CPU = "cpu"
MEMORY = "memory"
EPHEMERAL_STORAGE = "ephemeral-storage"
PODS = "pods"

# Requests assumed for a container that names none, used only for scoring (upstream
# `DefaultMilliCPURequest` and `DefaultMemoryRequest`), so empty pods still spread.
DEFAULT_MILLI_CPU_REQUEST = 100
DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024

_IGNORED_PREFIXES = ("requests.",)


def is_scalar_resource(name: str) -> bool:
    """Extended resources (`vendor.com/gpu`) and hugepages count as scalar resources."""
    return name not in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS) and not name.startswith(
        _IGNORED_PREFIXES
    )


@dataclass(slots=True)
class Resource:
    """A mutable resource vector; aggregation in the cache adds and subtracts these in place."""

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    allowed_pods: int = 0
    scalar: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_list(cls, resources: Mapping[str, str | int] | None) -> Resource:
        """Build from a `ResourceList` such as `{"cpu": "500m", "memory": "1Gi"}`."""
        result = cls()
        for name, quantity in (resources or {}).items():
            result.set(name, quantity)
        return result

    def set(self, name: str, quantity: str | int) -> None:
        if name == CPU:
            self.milli_cpu = milli_value(quantity)
        elif name == MEMORY:
            self.memory = value(quantity)
        elif name == EPHEMERAL_STORAGE:
            self.ephemeral_storage = value(quantity)
        elif name == PODS:
            self.allowed_pods = value(quantity)
        elif is_scalar_resource(name):
            self.scalar[name] = value(quantity)

    def copy(self) -> Resource:
        return Resource(
            self.milli_cpu,
            self.memory,
            self.ephemeral_storage,
            self.allowed_pods,
            dict(self.scalar),
        )

    def add(self, other: Resource) -> None:
        self.milli_cpu += other.milli_cpu
        self.memory += other.memory
        self.ephemeral_storage += other.ephemeral_storage
        self.allowed_pods += other.allowed_pods
        for name, amount in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) + amount

    def subtract(self, other: Resource) -> None:
        self.milli_cpu -= other.milli_cpu
        self.memory -= other.memory
        self.ephemeral_storage -= other.ephemeral_storage
        self.allowed_pods -= other.allowed_pods
        for name, amount in other.scalar.items():
            self.scalar[name] = self.scalar.get(name, 0) - amount

    def set_max(self, other: Resource) -> None:
        self.milli_cpu = max(self.milli_cpu, other.milli_cpu)
        self.memory = max(self.memory, other.memory)
        self.ephemeral_storage = max(self.ephemeral_storage, other.ephemeral_storage)
        self.allowed_pods = max(self.allowed_pods, other.allowed_pods)
        for name, amount in other.scalar.items():
            self.scalar[name] = max(self.scalar.get(name, 0), amount)

    def get(self, name: str) -> int:
        """Amount of one named resource (CPU in millicores)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.allowed_pods
        return self.scalar.get(name, 0)

    def names(self) -> Iterable[str]:
        """Names of the resources this vector holds a non-zero amount of."""
        for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
            if self.get(name):
                yield name
        yield from (name for name, amount in self.scalar.items() if amount)
