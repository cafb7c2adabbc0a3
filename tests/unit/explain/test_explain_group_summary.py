"""The one sentence of what a group still lacks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kubesched.explain.group_report import GroupReport, PermitView
from kubesched.explain.group_summary import NEEDS_URL, lacks
from tests.unit.explain.group_fakes import URL, group, known, waiting

HELD = known(*(waiting(f"w{i}") for i in range(4)))


@pytest.mark.parametrize(
    ("report", "expected"),
    [
        (group(pending=5), "5 of 8 members exist; the group waits until 8 do"),
        (
            group(pending=5, gated=4),
            "5 of 9 members are not gated (spec.schedulingGates); the group waits until 8 are",
        ),
        (group(bound=8), "nothing: 8 of 8 members are bound, the group is scheduled"),
        (
            group(bound=8, pending=2),
            (
                "nothing: 8 of 8 members are bound, the group is scheduled; the other 2 pending "
                "member(s) are placed as they fit"
            ),
        ),
        (group(bound=2, pending=6), f"2 of 8 members are bound; {NEEDS_URL}"),
        (
            group(bound=2, waiting_=4, pending=2, permit=HELD),
            "6 of 8 fit (4 waiting at Permit, 2 bound); 2 more need room",
        ),
        (
            group(waiting_=8, permit=HELD),
            (
                "nothing: 8 of 8 fit (8 waiting at Permit, 0 bound); the scheduler is letting "
                "them bind"
            ),
        ),
        (
            group(bound=2, pending=6, permit=PermitView(url=URL, error="cannot reach it")),
            (
                "2 of 8 members are bound; what the scheduler holds at Permit is unknown "
                "(see `held at Permit`)"
            ),
        ),
        (
            group(bound=2, pending=6, permit=PermitView(url=URL, leading=False)),
            (
                "2 of 8 members are bound; what the scheduler holds at Permit is unknown "
                "(see `held at Permit`)"
            ),
        ),
        (
            group(0, pending=3),
            "PodGroup ml/resnet sets no minMember: it is not a gang",
        ),
    ],
)
def test_what_the_group_lacks(report: GroupReport, expected: str) -> None:
    assert lacks(report) == expected


def test_a_member_that_fits_now_waits_for_its_cycle() -> None:
    report = group(bound=2, waiting_=4, pending=2, permit=HELD)
    assert lacks(report, pod_fits=True) == (
        "6 of 8 fit (4 waiting at Permit, 2 bound); 2 more must reach Permit (this member "
        "fits now and waits for its scheduling cycle)"
    )


def test_a_profile_without_the_gang_plugin_waits_for_nothing() -> None:
    assert lacks(replace(group(pending=5), enforced_by="")) == (
        "nothing kubesched waits for: its profile enables no gang plugin for this group, so "
        "it places the members one by one (5 of minMember 8 exist)"
    )


def test_a_missing_or_unreadable_group_says_so() -> None:
    assert lacks(replace(group(), found=False)) == (
        "PodGroup ml/resnet does not exist; its members wait until it is created"
    )
    problem = "cannot read PodGroup ml/resnet (forbidden): grant get on podgroups"
    assert lacks(replace(group(), problem=problem)) == problem
