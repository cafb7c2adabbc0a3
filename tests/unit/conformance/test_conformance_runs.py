"""What each conformance run selects, how ginkgo's report is counted, and which specs are
kubesched's bugs (failed with it, passed with kube-scheduler)."""

from __future__ import annotations

from pathlib import Path

from kubesched.localcluster.kwok import NODE_LABEL
from kubesched_conformance import report, specs
from kubesched_conformance.cluster import (
    NODES,
    PER_NODE_APPS,
    ZONE_LABEL,
    Setup,
    node_objects,
    per_node_pods,
)
from kubesched_conformance.run import Selection, ginkgo_argv


def _spec(leaf: str, state: str, message: str = "", kind: str = "It") -> dict[str, object]:
    return {
        "ContainerHierarchyTexts": ["[sig-scheduling] SchedulerPredicates"],
        "LeafNodeType": kind,
        "LeafNodeText": leaf,
        "State": state,
        "RunTime": 2_500_000_000,
        "Failure": {"Message": message} if message else {},
    }


REPORT = [
    {
        "SpecReports": [
            _spec("", "passed", kind="SynchronizedBeforeSuite"),
            _spec("a", "passed"),
            _spec("b", "failed", "Timed out after 300s.\nmore details"),
            _spec("c", "skipped", "Requires at least 2 zones"),
            _spec("d", "skipped"),
            _spec("e", "timedout", "spec timeout"),
        ]
    }
]


def test_the_report_gives_one_result_per_spec_with_why_it_failed() -> None:
    results = report.spec_results(REPORT)

    assert [(r.text.split()[-1], r.state) for r in results] == [
        ("a", report.PASSED),
        ("b", report.FAILED),
        ("c", report.SKIPPED),
        ("d", report.NOT_RUN),
        ("e", report.FAILED),
    ]
    assert results[1].message == "Timed out after 300s."
    assert results[0].text == "[sig-scheduling] SchedulerPredicates a"
    assert results[0].seconds == 2.5
    assert report.counts(results) == {"passed": 1, "failed": 2, "skipped": 1, "not run": 1}


def test_a_spec_failed_with_kubesched_and_passed_with_kube_scheduler_is_a_bug(
    tmp_path: Path,
) -> None:
    ours = report.spec_results(REPORT)
    oracle_report = [{"SpecReports": [_spec("b", "passed"), _spec("e", "failed", "x")]}]
    summary = tmp_path / "summary.json"
    report.write_summary(summary, name="kube-scheduler", results=ours, seconds=1.0)

    bugs = report.regressions(ours, report.spec_results(oracle_report))

    assert [bug.text.split()[-1] for bug in bugs] == ["b"]
    assert report.read_summary(summary) == ours


def test_the_gated_run_runs_the_gates_specs_and_the_defaults_run_the_others(
    tmp_path: Path,
) -> None:
    plain = ginkgo_argv(
        tmp_path / "bin",
        kubeconfig=tmp_path / "kc",
        json_report=tmp_path / "r.json",
        setup=Setup("kubesched"),
        selection=Selection(focus="NodeSelector"),
    )
    gated = ginkgo_argv(
        tmp_path / "bin",
        kubeconfig=tmp_path / "kc",
        json_report=tmp_path / "r.json",
        setup=Setup("kubesched", generic_workload=True),
        selection=Selection(include_unrunnable=True),
    )

    assert "--ginkgo.label-filter=!FeatureGate:GenericWorkload" in plain
    assert "--ginkgo.focus=NodeSelector" in plain
    assert f"--kubeconfig={tmp_path / 'kc'}" in plain
    assert "--ginkgo.label-filter=FeatureGate:GenericWorkload" in gated
    assert not [arg for arg in gated if arg.startswith(("--ginkgo.skip", "--ginkgo.focus"))]
    assert Setup("kube-scheduler", generic_workload=True).name == "kube-scheduler-GenericWorkload"


def test_unrunnable_specs_are_skipped_and_say_why() -> None:
    table = {r"pod overhead": "kwok rewrites the node status", r"\[Slow\]": "slow"}

    assert specs.skip_pattern(table) == r"(?:pod overhead)|(?:\[Slow\])"
    assert specs.unrunnable_reason("x verify pod overhead y", table) == table["pod overhead"]
    assert specs.unrunnable_reason("NodeSelector", table) == ""
    assert specs.skip_pattern({}) == ""
    for pattern, reason in specs.UNRUNNABLE.items():
        assert pattern
        assert reason


def test_the_nodes_are_kwoks_one_zone_each() -> None:
    nodes = node_objects()

    assert len(nodes) == NODES
    labels = [node["metadata"]["labels"] for node in nodes]
    assert all(label[NODE_LABEL[0]] == NODE_LABEL[1] for label in labels)
    assert len({label[ZONE_LABEL] for label in labels}) == NODES
    assert nodes[0]["status"]["addresses"][0] == {"type": "InternalIP", "address": "10.255.0.1"}


def test_each_node_has_stand_ins_of_the_system_pods_that_request_nothing() -> None:
    nodes = node_objects()

    pods = per_node_pods(nodes)

    assert len(pods) == len(nodes) * len(PER_NODE_APPS)
    assert {pod["spec"]["nodeName"] for pod in pods} == {n["metadata"]["name"] for n in nodes}
    assert all(pod["metadata"]["namespace"] == "kube-system" for pod in pods)
    assert "kube-proxy-node-1" in {pod["metadata"]["name"] for pod in pods}
    assert not [c for pod in pods for c in pod["spec"]["containers"] if "resources" in c]


def test_a_run_with_gates_runs_every_spec_whose_gates_it_turns_on(tmp_path: Path) -> None:
    setup = Setup("kubesched", gates="GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
    argv = ginkgo_argv(
        tmp_path / "bin",
        kubeconfig=tmp_path / "kc",
        json_report=tmp_path / "r.json",
        setup=setup,
        selection=Selection(),
    )

    assert setup.name == "kubesched-GenericWorkload-TopologyAwareWorkloadScheduling"
    assert setup.gate_map == {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
    assert (
        "--ginkgo.label-filter=!Feature:OffByDefault || FeatureGate: isSubsetOf "
        "{GenericWorkload,TopologyAwareWorkloadScheduling}"
    ) in argv
    # A gate turned off names no run and selects none of its specs.
    assert Setup("kube-scheduler", gates="GenericWorkload=false").name == "kube-scheduler"
