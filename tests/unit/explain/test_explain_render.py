"""The table (one row per node, a summary line) and the JSON of an Explanation."""

from __future__ import annotations

import json

from kubesched.explain import as_json, explain_pod, table
from kubesched.explain.report import Explanation
from kubesched.framework import Code, Status
from kubesched.testing import make_pod
from tests.unit.explain.explain_fakes import TableFilter, TableScore, framework

REJECT = Status(Code.UNSCHEDULABLE, "Insufficient cpu")


def explained(scores: dict[str, int], *, rejected: tuple[str, ...] = ()) -> Explanation:
    names = [*scores, *rejected]
    fw, nodes = framework(
        names,
        weights={"Spread": 2},
        filter=[TableFilter("Fit", dict.fromkeys(rejected, REJECT))],
        score=[TableScore("Spread", {**scores, **dict.fromkeys(rejected, 0)})],
    )
    pod = make_pod().name("web").namespace("demo").scheduler("my-scheduler").model()
    return explain_pod(fw, pod, nodes)


def test_table_has_one_row_per_node_in_score_order_and_a_summary_line() -> None:
    text = table(explained({"b": 30, "a": 50, "c": 30}, rejected=("z",)))
    lines = text.splitlines()
    assert lines[0] == "pod demo/web (schedulerName my-scheduler): 4 nodes, 3 feasible"
    header = lines[2].split()
    assert header == ["NODE", "TOTAL", "Spread*2", "VERDICT"]
    rows = [line.split()[0] for line in lines[3:7]]
    assert rows == ["a", "b", "c", "z"]
    assert lines[3].split()[:3] == ["a", "100", "50/50/100"]
    assert lines[3].endswith("feasible, chosen")
    assert lines[6].split()[1:3] == ["-", "-"]
    assert lines[6].endswith("rejected by Fit: Insufficient cpu")
    assert "score cells: raw/normalized/weighted" in text
    assert "preemption: not enabled in this profile" in text
    assert lines[-1] == "kubesched would choose a (total score 100)"


def test_table_says_when_there_is_a_tie() -> None:
    text = table(explained({"a": 5, "b": 5}))
    assert "feasible, tied for best" in text
    assert text.splitlines()[-1] == (
        "tie between a, b at total score 10: kubesched picks one of them at random"
    )


def test_table_ends_with_the_failed_scheduling_message_when_nothing_fits() -> None:
    text = table(explained({}, rejected=("x", "y")))
    assert text.splitlines()[-1] == (
        "FailedScheduling: 0/2 nodes are available: 2 Insufficient cpu."
    )
    assert "Spread*2" not in text  # no node was scored


def test_table_states_the_sampling() -> None:
    text = table(explained({"a": 1}))
    assert (
        "sampling: the scheduler stops filtering once it has found 1 feasible nodes of 1 "
        "(percentageOfNodesToScore: adaptive): it considers every node, as explain did"
    ) in text


def test_json_carries_every_verdict_score_and_the_decision() -> None:
    data = json.loads(as_json(explained({"a": 50, "b": 30}, rejected=("z",))))
    assert data["pod"] == "demo/web"
    assert data["schedulerName"] == "my-scheduler"
    assert data["numNodes"] == 3
    assert data["numFeasibleNodes"] == 2
    assert data["choice"] == {"node": "a", "best": ["a"], "tie": False}
    assert data["failedScheduling"] is None
    assert data["scorePlugins"] == [{"name": "Spread", "weight": 2}]
    nodes = {n["node"]: n for n in data["nodes"]}
    assert nodes["a"]["scores"]["Spread"] == {
        "raw": 50,
        "normalized": 50,
        "weight": 2,
        "weighted": 100,
    }
    assert nodes["a"]["total"] == 100
    assert nodes["z"] == {
        "node": "z",
        "feasible": False,
        "rejection": {
            "stage": "Filter",
            "plugin": "Fit",
            "code": "Unschedulable",
            "reasons": ["Insufficient cpu"],
            "message": "Insufficient cpu",
        },
    }
    assert data["sampling"]["numFeasibleNodesToFind"] == 3
    assert data["preemption"] == {
        "summary": "not enabled in this profile",
        "nominatedNode": None,
        "victims": [],
        "equallyRankedChoices": [],
    }
    assert data["summary"] == "kubesched would choose a (total score 100)"


def test_json_of_a_pod_that_fits_nowhere() -> None:
    data = json.loads(as_json(explained({}, rejected=("x",))))
    assert data["choice"] == {"node": None, "best": [], "tie": False}
    assert data["failedScheduling"] == "0/1 nodes are available: 1 Insufficient cpu."
