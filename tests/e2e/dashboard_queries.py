"""The Grafana dashboard's queries evaluated by promtool on the series Prometheus would store
from a real scrape of kubesched through the chart's ServiceMonitor.

The Prometheus Operator turns a ServiceMonitor into a scrape whose series carry `job` (the
Service's name), `namespace`, `service`, `pod`, `container`, `endpoint` (the port's name),
`instance` (the pod's address and port) and, for each `targetLabels` entry the Service has,
that label with every character outside `[a-zA-Z0-9_]` made `_`. `target_labels` builds those
labels from the Service and ServiceMonitor the chart renders; `check_dashboard` gives
promtool every sample of the scrape with them (a constant value each minute) and asks it, for
each variable of the dashboard, for the value Grafana would offer, and for each panel, whether
its query returns a series once the variables are set to the release's.
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

_UNSAFE = re.compile(r"[^a-zA-Z0-9_]")
_LABEL_VALUES = re.compile(r"^label_values\((?P<series>.+), (?P<label>[a-z_]+)\)$")
_METRIC = re.compile(r"\b((?:scheduler|rest_client|process|leader_election|kubesched)_[a-z_]+)\b")
POD, ADDRESS = "kubesched-5d8f7c9b6-x2x7q", "10.244.1.7:10259"


def target_labels(objects: list[dict[str, Any]]) -> dict[str, str]:
    """The labels of the ServiceMonitor's scrape of one replica."""
    (monitor,) = [o for o in objects if o["kind"] == "ServiceMonitor"]
    (service,) = [o for o in objects if o["kind"] == "Service"]
    meta, endpoint = service["metadata"], monitor["spec"]["endpoints"][0]
    labels = {
        "job": meta["name"],
        "namespace": meta["namespace"],
        "service": meta["name"],
        "pod": POD,
        "container": "kubesched",
        "endpoint": endpoint["port"],
        "instance": ADDRESS,
    }
    for name in monitor["spec"].get("targetLabels", []):
        if name in meta["labels"]:
            labels[_UNSAFE.sub("_", name)] = meta["labels"][name]
    return labels


def _series(metrics_text: str, labels: dict[str, str]) -> tuple[list[dict[str, str]], set[str]]:
    """promtool's input series (one per sample, 11 minutes of the same value) and the names
    of the samples."""
    found, names = [], set()
    for family in text_string_to_metric_families(metrics_text):
        for sample in family.samples:
            value = sample.value
            if not math.isfinite(value):
                continue
            names.add(sample.name)
            matchers = {**sample.labels, **labels}
            text = ", ".join(f"{key}={json.dumps(val)}" for key, val in sorted(matchers.items()))
            found.append({"series": f"{sample.name}{{{text}}}", "values": f"{value:.17g}x10"})
    return found, names


def check_dashboard(
    dashboard: dict[str, Any],
    metrics_text: str,
    labels: dict[str, str],
    *,
    promtool: Path,
    tmp: Path,
) -> list[str]:
    """The panels whose query returns a series (each whose metrics the scrape has must);
    raises AssertionError (promtool's report) when a variable or such a panel comes out
    empty."""
    series, sampled = _series(metrics_text, labels)
    chosen = {
        "namespace": labels["namespace"],
        "release": labels["app_kubernetes_io_instance"],
        "instance": ".*",  # All
    }
    tests = []
    for var in dashboard["templating"]["list"]:
        if var["type"] != "query":
            continue
        found = _LABEL_VALUES.match(_substitute(var["query"], chosen))
        assert found, var["query"]
        label = found["label"]
        expected = ".*" if label == "instance" else chosen[var["name"]]
        assert var["name"] == "instance" or expected == labels[label]
        expr = f"clamp_max(count by ({label}) ({found['series']}), 1)"
        tests.append(_expect(expr, f"{{{label}={json.dumps(labels[label])}}}"))
    shown = []
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            if not set(_METRIC.findall(target["expr"])) & _names(sampled):
                continue  # no sample of it in this scrape (e.g. nothing dropped): no data
            shown.append(panel["title"])
            tests.append(
                _expect(f"clamp_max(count({_substitute(target['expr'], chosen)}), 1)", "{}")
            )
    rules = {"tests": [{"interval": "1m", "input_series": series, "promql_expr_test": tests}]}
    (tmp / "dashboard-tests.yaml").write_text(yaml.safe_dump(rules, sort_keys=False))
    done = subprocess.run(
        [str(promtool), "test", "rules", "dashboard-tests.yaml"],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}"[-6000:]
    return shown


def _names(sampled: set[str]) -> set[str]:
    """Family names with and without the sample suffixes."""
    return sampled | {re.sub(r"_(bucket|sum|count)$", "", name) for name in sampled}


def _substitute(expr: str, chosen: dict[str, str]) -> str:
    for name, value in chosen.items():
        expr = expr.replace(f"${name}", value)
    return expr


def _expect(expr: str, labels: str) -> dict[str, Any]:
    return {"expr": expr, "eval_time": "5m", "exp_samples": [{"labels": labels, "value": 1}]}
