"""The pods a running kubesched holds at Permit, as its secure port serves them (GET
`/debug/waitingpods`, JSON) and `kubesched explain --scheduler-url` reads them.

    {"kind": "WaitingPodList", "apiVersion": "kubesched.io/v1alpha1",
     "leading": true, "observedAt": "2026-05-01T10:00:12.250Z",
     "items": [{"namespace": "ml", "name": "resnet-0", "uid": "...", "schedulerName": "gang",
                "node": "gpu-3", "plugins": ["Coscheduling"],
                "since": "2026-05-01T10:00:00.000Z", "deadline": "2026-05-01T10:02:00.000Z"}]}

`since` is when the pod reached Permit, `deadline` when the first of its `plugins` (those it
still waits for) times out and rejects it; both wall-clock UTC. `observedAt` is the server's
clock when it answered, so a reader can say "for 12s, 108s left" without trusting its own.
`leading` is false on a standby replica, which holds no pod at Permit.
A bottom-layer module: the server encodes, explain decodes; neither imports the other.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kubesched.errors import KubeschedError

WAITING_PODS_PATH = "/debug/waitingpods"
API_VERSION = "kubesched.io/v1alpha1"
KIND = "WaitingPodList"


class PermitViewError(KubeschedError):
    """The waiting pods could not be read; `str()` is one line naming the problem and the fix."""


@dataclass(frozen=True, slots=True)
class WaitingPodRecord:
    """One pod held at Permit."""

    namespace: str
    name: str
    uid: str
    scheduler_name: str
    node: str
    """The node the pod is assumed on while it waits."""
    plugins: tuple[str, ...]
    """The Permit plugins it still waits for."""
    since: float
    """Seconds since the epoch when it reached Permit."""
    deadline: float
    """Seconds since the epoch when its wait times out."""

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class WaitingPodList:
    leading: bool
    observed_at: float
    """The server's clock (seconds since the epoch) when it answered."""
    items: tuple[WaitingPodRecord, ...] = ()


def timestamp(seconds: float) -> str:
    """Seconds since the epoch as RFC 3339 in UTC with milliseconds."""
    moment = datetime.fromtimestamp(seconds, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_timestamp(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def encode(waiting: WaitingPodList) -> dict[str, Any]:
    return {
        "kind": KIND,
        "apiVersion": API_VERSION,
        "leading": waiting.leading,
        "observedAt": timestamp(waiting.observed_at),
        "items": [_encode_item(item) for item in waiting.items],
    }


def _encode_item(item: WaitingPodRecord) -> dict[str, Any]:
    return {
        "namespace": item.namespace,
        "name": item.name,
        "uid": item.uid,
        "schedulerName": item.scheduler_name,
        "node": item.node,
        "plugins": list(item.plugins),
        "since": timestamp(item.since),
        "deadline": timestamp(item.deadline),
    }


def decode(doc: object) -> WaitingPodList:
    """The list in `doc`; raises PermitViewError when it is not a WaitingPodList."""
    if not isinstance(doc, Mapping) or doc.get("kind") != KIND:
        raise PermitViewError(f"the answer is not a {KIND} (is the address kubesched's?)")
    try:
        items = tuple(_decode_item(item) for item in _items(doc.get("items")))
        return WaitingPodList(
            leading=bool(doc.get("leading")),
            observed_at=parse_timestamp(str(doc["observedAt"])),
            items=items,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise PermitViewError(f"the {KIND} is malformed ({type(exc).__name__}: {exc})") from exc


def _items(value: object) -> Iterable[Mapping[str, Any]]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(i, Mapping) for i in value):
        raise TypeError("items is not a list of objects")
    return value


def _decode_item(item: Mapping[str, Any]) -> WaitingPodRecord:
    return WaitingPodRecord(
        namespace=str(item["namespace"]),
        name=str(item["name"]),
        uid=str(item.get("uid") or ""),
        scheduler_name=str(item.get("schedulerName") or ""),
        node=str(item.get("node") or ""),
        plugins=tuple(str(p) for p in item.get("plugins") or ()),
        since=parse_timestamp(str(item["since"])),
        deadline=parse_timestamp(str(item["deadline"])),
    )
