"""Builders for the group tests: members, waiting records, reports."""

from __future__ import annotations

from dataclasses import replace

from kubesched.apis.waitingpods import WaitingPodRecord
from kubesched.explain.group_report import GroupReport, Member, PermitView

NOW = 1_780_000_000.0
URL = "https://127.0.0.1:10259"


def waiting(
    name: str, *, node: str = "n1", since: float = NOW - 12, left: float = 18
) -> WaitingPodRecord:
    return WaitingPodRecord(
        namespace="ml",
        name=name,
        uid=f"uid-{name}",
        scheduler_name="gang",
        node=node,
        plugins=("Coscheduling",),
        since=NOW - 12,
        deadline=NOW + 18,
    )


def members(
    *, bound: int = 0, waiting_: int = 0, gated: int = 0, pending: int = 0
) -> tuple[Member, ...]:
    failure = "0/2 nodes are available: 2 Insufficient cpu."
    return (
        *(Member(f"b{i}", node=f"n{i}") for i in range(bound)),
        *(Member(f"w{i}", waiting=waiting(f"w{i}")) for i in range(waiting_)),
        *(Member(f"g{i}", gates=("example.com/quota",)) for i in range(gated)),
        *(Member(f"p{i}", last_failure=failure) for i in range(pending)),
    )


def group(min_count: int = 8, *, permit: PermitView | None = None, **states: int) -> GroupReport:
    report = GroupReport("scheduling.x-k8s.io/v1alpha1", "ml", "resnet", "minMember", min_count)
    report = replace(report, enforced_by="Coscheduling")
    return replace(report, members=members(**states), permit=permit or PermitView())


def known(*held: WaitingPodRecord) -> PermitView:
    return PermitView(url=URL, leading=True, observed_at=NOW, held=held)
