"""A pod's quota verdict for `kubesched explain` (`CapacityScheduling.explain_pod`): its
namespace's ElasticQuota (used / min / max per resource, the runtime share with a quota
tree), what the pod asks for, what of it would go beyond `min` (borrowed), and whose pods
preemption would reclaim; as lines for the table and a dict for `-o json`.

explain builds the plugin as the scheduler does (its book counts the bound pods explain
listed; its shares are those of the pod's PreFilter), so the numbers are the scheduler's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from kubesched.model import Pod, Resource
from kubesched.model.resources import CPU
from kubesched.plugins.capacity_scheduling.quota import pod_request
from kubesched.plugins.capacity_scheduling.report import MAX, MIN, RUNTIME, USED, QuotaRow


@dataclass(frozen=True, slots=True)
class QuotaLine:
    """One resource of the pod's quota (cpu in millicores)."""

    resource: str
    used: int
    min: int
    max: int | None
    """None: the quota leaves it unlimited."""
    runtime: int | None
    """The runtime share (a quota tree only)."""
    request: int
    """What the pod asks for."""
    borrow: int
    """What of `request` would go beyond `min`."""


@dataclass(frozen=True, slots=True)
class QuotaVerdict:
    quota: str
    """`namespace/name` of the ElasticQuota."""
    tree: bool
    lines: tuple[QuotaLine, ...]
    reclaims_from: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """(namespace, victims) of the pods preemption would evict, by their namespace."""

    @property
    def borrows(self) -> bool:
        return any(line.borrow for line in self.lines)


def quota_verdict(
    rows: Iterable[QuotaRow],
    pod: Pod,
    victims: Iterable[str],
    usage: Callable[[Pod], Resource] = pod_request,
) -> QuotaVerdict | None:
    """The verdict for `pod`, None when its namespace has no quota. `victims`:
    `namespace/name` of the pods preemption would evict for it; `usage`: what a pod is
    charged."""
    row = next((r for r in rows if r.namespace == pod.namespace), None)
    if row is None:
        return None
    request = usage(pod)
    names = sorted({*row.names(), *request.names()})
    lines = tuple(_line(row, name, request.get(name)) for name in names)
    by_namespace: dict[str, list[str]] = {}
    for key in victims:
        by_namespace.setdefault(key.partition("/")[0], []).append(key)
    reclaims = tuple((ns, tuple(keys)) for ns, keys in sorted(by_namespace.items()))
    return QuotaVerdict(f"{row.namespace}/{row.name}", row.runtime is not None, lines, reclaims)


def _line(row: QuotaRow, name: str, request: int) -> QuotaLine:
    used, minimum = row.info.used.get(name), row.info.min.get(name)
    borrow = max(0, used + request - minimum) - max(0, used - minimum)
    return QuotaLine(
        name,
        used,
        minimum,
        row.amount(MAX, name),
        row.amount(RUNTIME, name),
        request,
        borrow,
    )


def _amount(name: str, amount: int) -> str:
    return f"{amount / 1000:g}" if name == CPU else str(amount)


def quota_lines(verdict: QuotaVerdict) -> list[str]:
    """The verdict for the table."""
    kind = "in a quota tree" if verdict.tree else "scheduler-plugins' rules"
    out = [f"quota: ElasticQuota {verdict.quota} ({kind}; cpu in cores)"]
    out += [f"  {line.resource}: {_cells(line)}" for line in verdict.lines]
    borrowed = [f"{_amount(x.resource, x.borrow)} {x.resource}" for x in verdict.lines if x.borrow]
    if borrowed:
        out.append(f"  the pod would borrow {', '.join(borrowed)} beyond min")
    else:
        out.append("  the pod stays within its quota's min (borrows nothing)")
    for namespace, keys in verdict.reclaims_from:
        out.append(f"  preemption would reclaim from namespace {namespace}: {', '.join(keys)}")
    return out


def _cells(line: QuotaLine) -> str:
    name = line.resource
    cells = [f"{USED} {_amount(name, line.used)}", f"{MIN} {_amount(name, line.min)}"]
    cells.append(f"{MAX} " + ("unlimited" if line.max is None else _amount(name, line.max)))
    if line.runtime is not None:
        cells.append(f"runtime share {_amount(name, line.runtime)}")
    cells.append(f"pod requests {_amount(name, line.request)}")
    return ", ".join(cells)


def quota_dict(verdict: QuotaVerdict) -> dict[str, Any]:
    """The verdict for `-o json` (cpu in millicores)."""
    return {
        "quota": verdict.quota,
        "tree": verdict.tree,
        "resources": [
            {
                "resource": line.resource,
                USED: line.used,
                MIN: line.min,
                MAX: line.max,
                RUNTIME: line.runtime,
                "request": line.request,
                "borrow": line.borrow,
            }
            for line in verdict.lines
        ],
        "reclaimsFrom": [
            {"namespace": ns, "victims": list(keys)} for ns, keys in verdict.reclaims_from
        ],
    }
