"""The state of one `Allocate` call (upstream's unexported `allocator`), shared by the
steps of the search: requests checked up front, devices taken and the search itself."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubesched.dra.structured.constraints import Constraint
from kubesched.dra.structured.pools import Pool
from kubesched.dra.structured.results import DeviceResult
from kubesched.dra.structured.types import (
    ConsumedCapacity,
    DeviceID,
    Features,
)
from kubesched.errors import KubeschedError
from kubesched.model import Node
from kubesched.model.dra import Device, ResourceSlice
from kubesched.model.dra_claims import DeviceRequestSpec, ResourceClaim
from kubesched.model.dra_classes import DeviceClass
from kubesched.model.quantity import Quantity

if TYPE_CHECKING:
    from kubesched.dra.structured.allocator import Allocator

RequestKey = tuple[int, int, int]
"""(claim index, request index, subrequest index)."""
Undo = Callable[[], None]


def claim_name(claim: ResourceClaim) -> str:
    """`klog.KObj(claim)`."""
    return f"{claim.namespace}/{claim.name}" if claim.namespace else claim.name


@dataclass(slots=True)
class RequestData:
    """A request, or one subrequest of a `firstAvailable` list, checked and ready."""

    request: DeviceRequestSpec
    parent: str | None
    """The name of the request holding this subrequest; None for a plain request."""
    device_class: DeviceClass | None
    num_devices: int = 0
    selected_subrequest: int = 0
    all_devices: list[Candidate] = field(default_factory=list)

    @property
    def name(self) -> str:
        if self.parent is None:
            return self.request.name
        return f"{self.parent}/{self.request.name}"


@dataclass(frozen=True, slots=True)
class Candidate:
    id: DeviceID
    device: Device
    slice: ResourceSlice
    pool: Pool


class MaxSizeExceeded(KubeschedError):
    """More devices than a claim's results can hold along this branch of the search."""


class RunState:
    """What every step of one call reads and changes."""

    def __init__(
        self,
        owner: Allocator,
        node: Node,
        claims: Sequence[ResourceClaim],
        deadline: float | None,
    ) -> None:
        self.a = owner
        self.features: Features = owner.features
        self.node = node
        self.claims = list(claims)
        self.deadline = deadline
        self.pools: list[Pool] = []
        self.match_cache: dict[tuple[DeviceID, int, int, int], bool] = {}
        self.constraints: list[list[Constraint]] = [[] for _ in claims]
        self.consumed_counters: dict[tuple[str, str], dict[str, dict[str, Quantity]]] = {}
        self.request_data: dict[RequestKey, RequestData] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        """Devices taken in this call -> the claims (indexes) they are taken for."""
        self.allocating_capacity: dict[DeviceID, ConsumedCapacity] = {}
        self.results: list[list[DeviceResult]] = [[] for _ in claims]

    def device_input(self, device: Device, driver: str) -> dict[str, Any]:
        return self.a.device_input(device, driver)
