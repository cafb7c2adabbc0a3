"""Helpers of the chart's unit tests: `helm template` of the chart (helm is built once from
the Go module proxy and cached, as for the end-to-end tests) and `kubesched manifests` run in
this process."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.cli import manifests

CHART = Path(__file__).parents[3] / "charts" / "kubesched"
NAMESPACE = "kubesched-system"


def helm_template(
    helm: Path, *args: str, chart: Path = CHART, show: str = ""
) -> list[dict[str, Any]]:
    """The objects `helm template kubesched CHART ARGS` renders in NAMESPACE (`show`: only
    that template)."""
    argv = [str(helm), "template", "kubesched", str(chart), f"--namespace={NAMESPACE}", *args]
    if show:
        argv.append(f"--show-only=templates/{show}")
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, f"{' '.join(argv)}\n{result.stderr}"
    return [doc for doc in yaml.safe_load_all(result.stdout) if doc]


def helm_refusal(helm: Path, *args: str) -> str:
    """stderr of `helm template` of the chart, which must fail."""
    argv = [str(helm), "template", "kubesched", str(CHART), *args]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode != 0, f"{' '.join(argv)} rendered:\n{result.stdout[:2000]}"
    return result.stderr


def manifests_objects(capsys: pytest.CaptureFixture[str], *flags: str) -> list[dict[str, Any]]:
    """The objects `kubesched manifests FLAGS` prints."""
    capsys.readouterr()
    code = manifests.main(list(flags))
    out, err = capsys.readouterr()
    assert code == 0, err
    return [doc for doc in yaml.safe_load_all(out) if doc]


def cluster_role_rules(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rules of kubesched's own ClusterRole among `objects` (`kubesched:<ns>:<name>`)."""
    (role,) = [
        o
        for o in objects
        if o["kind"] == "ClusterRole"
        and o["metadata"]["name"].startswith(f"kubesched:{NAMESPACE}:")
        and not o["metadata"]["name"].endswith(":metrics-reader")
    ]
    rules: list[dict[str, Any]] = role["rules"]
    return rules
