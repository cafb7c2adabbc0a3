"""With `--logging-format=json` every line kubesched writes at start-up is a JSON log line,
the notices and the fatal error too (`{"msg":"command failed","err":...}` as kube-scheduler's);
without it they are plain lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kubesched", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def config(tmp_path: Path) -> Path:
    """A file with notices to give (parallelism, a pluginConfig for no plugin) whose
    kubeconfig does not exist: kubesched stops at start-up."""
    path = tmp_path / "config.yaml"
    path.write_text(
        HEADER + "parallelism: 4\nleaderElection: {leaderElect: false}\n"
        f"clientConnection: {{kubeconfig: {tmp_path / 'none'}}}\n"
        "profiles:\n- schedulerName: x\n  pluginConfig: [{name: Nope, args: {}}]\n",
        encoding="utf-8",
    )
    return path


def test_start_up_lines_are_json_under_the_json_format(config: Path) -> None:
    result = run(f"--config={config}", "--logging-format=json", "--lock-object-name=x")
    assert result.returncode == 1
    records = [json.loads(line) for line in result.stderr.splitlines()]  # every line is JSON
    messages = [record["msg"] for record in records]
    assert messages[0].startswith("flag --lock-object-name is deprecated")
    assert any(message.startswith("parallelism: 4 accepted") for message in messages)
    assert any("plugin 'Nope' does not exist" in message for message in messages)
    assert records[-1]["msg"] == "command failed"
    assert records[-1]["err"].startswith(f"kubeconfig {config.parent / 'none'} does not exist")


def test_a_config_error_is_one_json_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(HEADER + "parallelism: 0\n", encoding="utf-8")
    result = run(f"--config={path}", "--logging-format=json", "--write-config-to=-")
    assert result.returncode == 1
    assert result.stdout == ""
    (record,) = [json.loads(line) for line in result.stderr.splitlines()]
    assert record["msg"] == "command failed"
    assert record["err"].startswith(
        "parallelism: Invalid value: 0: should be an integer value greater than zero"
    )


def test_start_up_lines_are_plain_by_default(config: Path) -> None:
    result = run(f"--config={config}")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert lines[0].startswith("parallelism: 4 accepted")
    assert lines[-1].startswith("kubesched: kubeconfig ")
