"""The group section as table lines and as JSON."""

from __future__ import annotations

import json
from dataclasses import replace

from kubesched.explain.group_render import group_dict, group_lines, permit_text
from kubesched.explain.group_report import GroupReport, PermitView
from tests.unit.explain.group_fakes import URL, group, known, waiting


def sample() -> GroupReport:
    held = known(waiting("w0"), waiting("w1"))
    report = group(5, bound=1, waiting_=2, gated=1, pending=1, permit=held)
    return replace(
        report,
        timeout="120s (spec.scheduleTimeoutSeconds)",
        status=(("phase", "Scheduling"), ("scheduled", "1"), ("running", "0")),
        lacks="3 of 5 fit (2 waiting at Permit, 1 bound); 2 more need room",
    )


def test_the_table_section() -> None:
    assert group_lines(sample()) == [
        "group: PodGroup ml/resnet (scheduling.x-k8s.io/v1alpha1), minMember 5",
        "  timeout at Permit: 120s (spec.scheduleTimeoutSeconds)",
        "  status: phase Scheduling, scheduled 1, running 0",
        "  members: 5 exist (1 bound, 2 waiting at Permit, 1 gated, 1 pending)",
        "    b0  bound to n0",
        (
            "    w0  waiting at Permit on n1 since 2026-05-28T20:26:28.000Z (12s), for "
            "Coscheduling; deadline 2026-05-28T20:26:58.000Z (in 18s)"
        ),
        (
            "    w1  waiting at Permit on n1 since 2026-05-28T20:26:28.000Z (12s), for "
            "Coscheduling; deadline 2026-05-28T20:26:58.000Z (in 18s)"
        ),
        "    g0  gated (schedulingGates: example.com/quota)",
        "    p0  pending; last FailedScheduling: 0/2 nodes are available: 2 Insufficient cpu.",
        f"  held at Permit: w0, w1 (by the leader at {URL})",
        "  the group lacks: 3 of 5 fit (2 waiting at Permit, 1 bound); 2 more need room",
    ]


def test_the_json_section() -> None:
    found = json.loads(json.dumps(group_dict(sample())))
    assert found["minMember"] == 5
    assert found["status"] == {"phase": "Scheduling", "scheduled": "1", "running": "0"}
    assert [m["state"] for m in found["members"]] == [
        "bound",
        "waiting at Permit",
        "waiting at Permit",
        "gated",
        "pending",
    ]
    assert found["members"][1]["waiting"]["deadline"] == "2026-05-28T20:26:58.000Z"
    assert found["members"][4]["lastFailedScheduling"].startswith("0/2 nodes")
    permit = found["permit"]
    assert (permit["schedulerURL"], permit["known"], permit["leading"]) == (URL, True, True)
    assert [h["name"] for h in permit["held"]] == ["w0", "w1"]


def test_the_permit_view_says_what_it_needs_or_what_went_wrong() -> None:
    assert permit_text(PermitView()).startswith(
        "unknown: pass --scheduler-url=https://LEADER:10259 (the kubesched leader's secure port)"
    )
    assert permit_text(PermitView(url=URL, error="cannot reach the scheduler")) == (
        "unknown: cannot reach the scheduler"
    )
    assert "is not the leader" in permit_text(PermitView(url=URL, leading=False))
    assert permit_text(known()) == f"none (by the leader at {URL})"
    unknown = group_dict(group(permit=PermitView()))["permit"]
    assert (unknown["known"], unknown["held"], unknown["leading"]) == (False, None, None)
