"""The containers' own requests of extended resources, kept only for pods that request some:
DynamicResources turns those a DeviceClass provides into device requests, one per container
and resource, named as upstream (`container-<index>-request-<index of the resource among
the container's sorted request names>`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.model.quantity import value


@dataclass(frozen=True, slots=True)
class ContainerRequests:
    """One container of `initContainers + containers`, in that order."""

    name: str
    init: bool
    sidecar: bool
    """An init container with `restartPolicy: Always` (it runs beside the others)."""
    request_names: tuple[str, ...] = ()
    """Every resource it requests, sorted."""
    amounts: Mapping[str, int] = field(default_factory=dict)
    """Its requests as integers (extended resources are counted in whole units)."""


def container_requests(
    containers: list[dict[str, Any]], init_containers: list[dict[str, Any]]
) -> tuple[ContainerRequests, ...]:
    out = []
    for index, raw in enumerate([*init_containers, *containers]):
        requests = ((raw.get("resources") or {}).get("requests")) or {}
        amounts = {}
        for name, quantity in requests.items():
            try:
                amounts[name] = value(quantity)
            except (ValueError, TypeError):
                continue
        out.append(
            ContainerRequests(
                name=str(raw.get("name") or ""),
                init=index < len(init_containers),
                sidecar=raw.get("restartPolicy") == "Always",
                request_names=tuple(sorted(requests)),
                amounts=amounts,
            )
        )
    return tuple(out)
