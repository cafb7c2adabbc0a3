"""`kubesched replay --html` (docs/replay.md, "The HTML report"): one self-contained page
with the KPIs, the charts over virtual time, and the decisions that differ from the trace
and between configurations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesched.cli import main
from kubesched.config import load_config
from kubesched.replay import ConfigReport, read_trace, replay_trace, trace
from kubesched.replay.html_report import MAX_ROWS, render
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.traces import at, listed, write

MOST_ALLOCATED = (
    "apiVersion: kubescheduler.config.k8s.io/v1\n"
    "kind: KubeSchedulerConfiguration\n"
    "profiles:\n"
    "- schedulerName: default-scheduler\n"
    "  pluginConfig:\n"
    "  - name: NodeResourcesFit\n"
    "    args:\n"
    "      scoringStrategy:\n"
    "        type: MostAllocated\n"
)


def _trace(tmp_path: Path) -> Path:
    """Four 8-CPU nodes; six 1-CPU pods, each recorded bound to n0; one 20-CPU pod no node
    holds."""
    records = [listed("nodes", make_node().name(f"n{i}").capacity(cpu="8").obj()) for i in range(4)]
    records.append({"t": 0.0, "op": trace.SYNCED})
    for i in range(6):
        pod = make_pod().name(f"p{i}").namespace("w").req(cpu="1").obj()
        records.append(at(1.0 + i, trace.ADDED, "pods", pod))
        uid = pod["metadata"]["uid"]
        records.append(
            {"t": 1.5 + i, "op": trace.BOUND, "pod": f"w/p{i}", "uid": uid, "node": "n0"}
        )
    huge = make_pod().name("huge").namespace("w").req(cpu="20").obj()
    records.append(at(3.0, trace.ADDED, "pods", huge))
    return write(tmp_path / "t.jsonl.gz", records, end=20.0)


def _reports(tmp_path: Path) -> list[ConfigReport]:
    config_file = tmp_path / "most.yaml"
    config_file.write_text(MOST_ALLOCATED)
    configs = [
        ("default", load_config([]).config),
        ("most.yaml", load_config([f"--config={config_file}"]).config),
    ]
    return replay_trace(read_trace(_trace(tmp_path)), configs, seed=1, follow_ties=False)


def _page(tmp_path: Path) -> str:
    return render("replay of t.jsonl.gz", _reports(tmp_path))


def test_the_page_is_self_contained(tmp_path: Path) -> None:
    page = _page(tmp_path)
    assert page.startswith("<!DOCTYPE html>")
    assert page.rstrip().endswith("</html>")
    assert "<script" not in page
    assert not re.search(r"\b(src|href)=", page)
    assert "@import" not in page


def test_the_page_has_the_kpis_of_each_configuration(tmp_path: Path) -> None:
    page = _page(tmp_path)
    header = "<tr><th></th><th>default</th><th>most.yaml</th></tr>"
    assert header in page
    assert '<tr><td>pods</td><td class="n">7</td><td class="n">7</td></tr>' in page
    assert '<tr><td>unschedulable at end</td><td class="n">1</td><td class="n">1</td></tr>' in page


def test_the_charts_show_the_waiting_pod_and_each_resource(tmp_path: Path) -> None:
    page = _page(tmp_path)
    charts = re.findall(r'<svg [^>]*aria-label="([^"]+)"', page)
    assert charts == [
        "Pods waiting for a node (in the queue)",
        "cpu requested / allocatable",
        "memory requested / allocatable",
        "pods requested / allocatable",
    ]
    lines = re.findall(r'<polyline [^>]*points="([^"]+)"><title>([^<]+)</title>', page)
    assert [name for _, name in lines] == ["default", "most.yaml"] * 4
    # The huge pod waits from t=3 to the end: the waiting chart starts at 0 pods and ends at
    # 1, on a y axis of whole pods from 0 to 5 (from y=224 to y=28, 39.2 a pod).
    waiting_default = lines[0][0].split()
    assert waiting_default[0] == "60.0,224.0"
    assert waiting_default[-1] == "550.0,184.8"
    assert '<text x="54" y="110.4" text-anchor="end">3</text>' in page


def test_the_decisions_that_differ_from_the_trace_are_listed(tmp_path: Path) -> None:
    reports = _reports(tmp_path)
    page = render("replay", reports)
    for report in reports:
        counts = report.agreement()
        differing = len(report.outcomes) - counts["same"] - counts["tie"]
        assert differing >= 2  # the huge pod, and at least one pod off the trace's n0
        assert f"<h3>{report.name}: {differing} of 7 pods</h3>" in page
        for outcome in report.outcomes:
            if outcome.node not in ("n0", "") and "n0" not in outcome.ties:
                row = f"<tr><td>{outcome.pod}</td><td>n0</td><td>{outcome.node}</td>"
                assert f"{row}<td>different</td></tr>" in page
    assert "<tr><td>w/huge</td><td>-</td><td>-</td><td>neither</td></tr>" in page


def test_the_decisions_that_differ_between_configurations_are_listed(tmp_path: Path) -> None:
    spread, packed = reports = _reports(tmp_path)
    page = render("replay", reports)
    nodes = {o.pod: o.node for o in packed.outcomes}
    moved = [o for o in spread.outcomes if o.node != nodes[o.pod]]
    assert len({o.node for o in packed.outcomes if o.node}) == 1  # MostAllocated packs
    assert len(moved) >= 3  # the default profile spreads them
    assert f"Pods placed elsewhere than by default: most.yaml: {len(moved)}." in page
    assert "<th>pod</th><th>default</th><th>most.yaml</th>" in page
    for outcome in moved:
        assert f"<tr><td>{outcome.pod}</td><td>{outcome.node}</td><td>{nodes[outcome.pod]}" in page


def test_kubesched_replay_writes_the_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    assert main(["replay", str(_trace(tmp_path)), "--html", str(out)]) == 0
    page = out.read_text("utf-8")
    assert f"<h1>replay of {_trace(tmp_path)}: 20 s recorded from v1.37.2" in page
    assert "<svg" in page
    assert "scheduled" in capsys.readouterr().out


def test_an_html_file_in_a_missing_folder_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "nowhere" / "report.html"
    assert main(["replay", str(_trace(tmp_path)), "--html", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"kubesched replay: the folder of {out} does not exist; create it first\n"


def test_long_lists_stop_and_say_how_many_more(tmp_path: Path) -> None:
    records = [listed("nodes", make_node().name("n").capacity(cpu="1").obj())]
    records.append({"t": 0.0, "op": trace.SYNCED})
    for i in range(MAX_ROWS + 5):
        pod = make_pod().name(f"p{i}").namespace("w").req(cpu="2").obj()
        records.append(at(1.0, trace.ADDED, "pods", pod))
        uid = pod["metadata"]["uid"]
        records.append({"t": 1.0, "op": trace.BOUND, "pod": f"w/p{i}", "uid": uid, "node": "n"})
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=2.0))
    page = render("replay", replay_trace(recorded, [("default", load_config([]).config)]))
    assert page.count("<td>only recorded</td>") == MAX_ROWS
    assert "<p>… and 5 more (all of them in --json).</p>" in page


def test_a_trace_without_bindings_has_nothing_to_compare(tmp_path: Path) -> None:
    records = [listed("nodes", make_node().name("n").obj()), {"t": 0.0, "op": trace.SYNCED}]
    records.append(at(1.0, trace.ADDED, "pods", make_pod().name("p").namespace("w").obj()))
    recorded = read_trace(write(tmp_path / "t.jsonl.gz", records, end=2.0))
    page = render("replay", replay_trace(recorded, [("default", load_config([]).config)]))
    assert "<h3>default</h3><p>The trace records no binding" in page
    assert "<td>only replay</td>" not in page
