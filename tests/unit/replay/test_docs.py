"""docs/replay.md: its ClusterRole for `kubesched record` grants exactly what it reads (list
and watch on every kind it records and on events, `get` on /version, nothing else), and each
of its commands is run by the end-to-end test named here, so the page cannot rot."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from kubesched.replay.kinds import KINDS
from kubesched.replay.recorder import EVENTS

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "replay.md"
RUN_BY = {
    "kubesched record --out trace.jsonl.gz --duration 10m": "tests/e2e/test_record_replay.py",
    "kubesched replay trace.jsonl.gz": "tests/e2e/test_record_replay.py",
    "kubesched replay trace.jsonl.gz --config least-allocated.yaml --config "
    "most-allocated.yaml --json report.json": "tests/e2e/test_record_replay.py",
    "kubesched replay trace.jsonl.gz --html report.html": "tests/unit/replay/test_html_report.py",
    "PYTHONPATH=tools python -m kubesched_synthtrace --nodes 15000 --pods 50000 "
    "--out synthetic.jsonl.gz": "tests/unit/replay/test_synthetic_trace.py",
    "kubesched bench --trace trace.jsonl.gz --contenders kubesched,kube-scheduler": (
        "tests/e2e/test_bench_trace.py"
    ),
}
"""Each command of the page's `sh` blocks -> the test that runs it (as written, on the real
control plane where it needs a cluster; the synthetic trace's at a tiny size, the bench's
with kubesched only)."""


def _role() -> dict[str, Any]:
    blocks = re.findall(r"```yaml\n(# record-rbac.yaml\n.*?)```", GUIDE.read_text(), re.DOTALL)
    [block] = blocks
    role: dict[str, Any] = yaml.safe_load(block)
    return role


def _group_and_resource(path: str) -> tuple[str, str]:
    parts = path.strip("/").split("/")
    return ("", parts[2]) if parts[0] == "api" else (parts[1], parts[3])


def test_the_role_grants_list_and_watch_on_every_recorded_kind() -> None:
    role = _role()
    assert role["kind"] == "ClusterRole"
    granted = {
        (group, resource)
        for rule in role["rules"]
        if "resources" in rule
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    wanted = {_group_and_resource(kind.path) for kind in (*KINDS, EVENTS)}
    assert granted == wanted


def test_the_role_only_reads() -> None:
    rules = _role()["rules"]
    assert all(rule["verbs"] == ["list", "watch"] for rule in rules if "resources" in rule)
    assert [rule for rule in rules if "nonResourceURLs" in rule] == [
        {"nonResourceURLs": ["/version"], "verbs": ["get"]}
    ]


def test_every_command_of_the_page_is_run_by_a_test() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", GUIDE.read_text(), re.DOTALL)
    commands = [line for block in blocks for line in block.splitlines() if line.strip()]
    assert commands == list(RUN_BY)
    for test in RUN_BY.values():
        assert "docs/replay.md" in (ROOT / test).read_text()
