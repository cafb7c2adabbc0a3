from __future__ import annotations

from kubesched.framework import Code, Diagnosis, Status
from kubesched.runtime import FitError
from kubesched.testing import make_pod

POD = make_pod().name("p").model()
TAINT = "node(s) had untolerated taint(s)"


def fit_error(num_nodes: int, statuses: dict[str, Status], **diag: str) -> str:
    diagnosis = Diagnosis(**diag)  # type: ignore[arg-type]
    for name, status in statuses.items():
        diagnosis.node_to_status.set(name, status)
    return str(FitError(pod=POD, num_all_nodes=num_nodes, diagnosis=diagnosis))


def test_reasons_are_counted_over_nodes_and_sorted_as_strings() -> None:
    message = fit_error(
        3,
        {
            "n1": Status(Code.UNSCHEDULABLE, "Insufficient cpu"),
            "n2": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, TAINT),
            "n3": Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, TAINT),
        },
    )
    assert (
        message
        == "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s)."
    )


def test_every_reason_of_a_node_counts_and_sorting_is_lexicographic() -> None:
    statuses = {f"n{i}": Status(Code.UNSCHEDULABLE, "Insufficient memory") for i in range(10)}
    statuses["x"] = Status(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory")
    statuses["y"] = Status(Code.UNSCHEDULABLE, "Insufficient cpu")
    # "11 ..." sorts before "2 ..." as in Go's sort.Strings.
    assert (
        fit_error(12, statuses)
        == "0/12 nodes are available: 11 Insufficient memory, 2 Insufficient cpu."
    )


def test_pre_filter_message_replaces_node_counts() -> None:
    message = fit_error(
        5, {}, pre_filter_msg="pod uses podAffinity, which kubesched does not support yet"
    )
    assert (
        message
        == "0/5 nodes are available: pod uses podAffinity, which kubesched does not support yet."
    )


def test_absent_nodes_take_the_absent_status() -> None:
    diagnosis = Diagnosis()
    diagnosis.node_to_status.absent_nodes_status = Status(
        Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "node(s) didn't satisfy plugin(s) [NodeAffinity]"
    )
    diagnosis.node_to_status.set("n1", Status(Code.UNSCHEDULABLE, "Too many pods"))
    message = str(FitError(pod=POD, num_all_nodes=4, diagnosis=diagnosis))
    assert message == (
        "0/4 nodes are available: 1 Too many pods,"
        " 3 node(s) didn't satisfy plugin(s) [NodeAffinity]."
    )


def test_post_filter_message_is_appended() -> None:
    message = fit_error(
        1,
        {"n1": Status(Code.UNSCHEDULABLE, "Insufficient cpu")},
        post_filter_msg=PREEMPTION,
    )
    assert message == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."
    )


PREEMPTION = "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."


def test_plugin_statuses_feed_unschedulable_and_pending_plugins() -> None:
    diagnosis = Diagnosis()
    diagnosis.add_plugin_status(Status(Code.UNSCHEDULABLE, "x", plugin="A"))
    diagnosis.add_plugin_status(Status(Code.PENDING, "y", plugin="B"))
    diagnosis.add_plugin_status(Status(Code.UNSCHEDULABLE, "z"))
    assert diagnosis.unschedulable_plugins == {"A", "B"}
    assert diagnosis.pending_plugins == {"B"}
