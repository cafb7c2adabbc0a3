"""`kubesched shadow report`'s summary: counts from a shadow's real /metrics text (the
counter as prometheus_client exposes it), disagreements from its log in either format."""

from __future__ import annotations

import json

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from kubesched.scheduler.shadow import DISAGREEMENT, decisions_counter
from kubesched.scheduler.shadow_report import (
    ReportError,
    Summary,
    counts_from_metrics,
    disagreements_from_log,
    render,
)

TEXT_LINE = (
    'I1206 21:00:00.000001   4242 shadow.py:190] "shadow decision differs" pod="ns/p-3" '
    'agreement="different" profile="kubesched" kubeschedNode="big" schedulerNode="small" '
    'kubeschedNodeScore="469" schedulerNodeScore="436"'
)


def metrics_text(**counts: int) -> str:
    registry = CollectorRegistry()
    counter = decisions_counter(registry)
    for agreement, count in counts.items():
        counter.labels("kubesched", agreement.replace("_", "-")).inc(count)
    return generate_latest(registry).decode()


def test_counts_and_share() -> None:
    counts = counts_from_metrics(metrics_text(same_node=18, tie=1, different=1))
    assert counts == {"kubesched": {"same-node": 18, "tie": 1, "different": 1}}
    report = render(Summary(counts=counts))
    assert report.splitlines()[0] == "profile kubesched: 20 decisions compared, 19 agree (95.0 %)"
    assert "  different                        1" in report


def test_a_page_without_the_metric_is_refused_in_one_line() -> None:
    with pytest.raises(ReportError, match="--shadow-scheduler-name") as refused:
        counts_from_metrics("# HELP up x\n# TYPE up gauge\nup 1\n")
    assert "\n" not in str(refused.value)


def test_disagreements_from_text_and_json_logs() -> None:
    entry = {"ts": 1.0, "msg": DISAGREEMENT, "pod": "ns/p-4", "agreement": "tie"}
    log = "\n".join(
        [
            'I1206 21:00:00.000000   4242 app.py:1] "caches synced" nodes=4',
            TEXT_LINE,
            json.dumps(entry),
            '{"msg": "shadow decision differs", "cut short',
        ]
    )
    [text, from_json] = disagreements_from_log(log)
    assert text["pod"] == "ns/p-3"
    assert (text["kubeschedNode"], text["schedulerNode"]) == ("big", "small")
    assert from_json["pod"] == "ns/p-4"
    report = render(Summary(counts={}, disagreements=[text]), log_name="kubesched.log")
    assert report.splitlines() == [
        "disagreements in kubesched.log: 1",
        "  ns/p-3  different  kubesched: big (score 469)  scheduler: small (score 436)",
    ]
