"""Rejections handed to a Diagnosis in bulk (`defer_rejections`) are recorded only when read,
and read back exactly as if each had been set in turn."""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.framework import Code, Diagnosis, Status

FULL = Status(Code.UNSCHEDULABLE, "Insufficient cpu", plugin="NodeResourcesFit")
TAINTED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "taint", plugin="TaintToleration")
PARKED = Status(Code.PENDING, "waiting", plugin="DynamicResources")


@dataclass(frozen=True)
class _Node:
    name: str


def _nodes(*names: str) -> list[_Node]:
    return [_Node(name) for name in names]


def test_deferred_rejections_are_counted_and_read_as_if_set_in_turn() -> None:
    diagnosis = Diagnosis()
    diagnosis.defer_rejections(_nodes("a", "b"), [FULL, TAINTED])
    diagnosis.defer_rejections(_nodes("c"), [PARKED])
    assert len(diagnosis.node_to_status) == 3
    assert diagnosis.unschedulable_plugins == {
        "NodeResourcesFit",
        "TaintToleration",
        "DynamicResources",
    }
    assert diagnosis.pending_plugins == {"DynamicResources"}
    assert [name for name, _ in diagnosis.node_to_status.items()] == ["a", "b", "c"]
    assert diagnosis.node_to_status.get("b") is TAINTED
    assert "c" in diagnosis.node_to_status


def test_a_status_set_directly_is_counted_once_and_the_later_write_wins() -> None:
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set("a", TAINTED)  # e.g. the nominated node, before the scan
    diagnosis.defer_rejections(_nodes("a", "b"), [FULL, FULL])
    assert len(diagnosis.node_to_status) == 2
    assert diagnosis.node_to_status.get("a") is FULL
    diagnosis.node_to_status.set("b", TAINTED)  # e.g. an extender, after the scan
    assert diagnosis.node_to_status.get("b") is TAINTED


def test_plugin_sets_given_at_construction_are_kept_and_extended() -> None:
    given = {"NodeAffinity"}
    diagnosis = Diagnosis(unschedulable_plugins=given)
    diagnosis.defer_rejections(_nodes("a"), [FULL])
    assert diagnosis.unschedulable_plugins is given
    assert given == {"NodeAffinity", "NodeResourcesFit"}
    diagnosis.unschedulable_plugins = {"Replaced"}
    assert diagnosis.unschedulable_plugins == {"Replaced"}
