"""The resource metrics' arithmetic and exposition, the zpages' negotiation and text, and the
flag values /flagz prints (the e2e test compares them with kube-scheduler v1.37.2)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kubesched.server.flagvalues import flag_values, go_duration
from kubesched.server.resource_metrics import go_float, pod_limits, pod_requests, render
from kubesched.server.zpages import DELIMITERS, Flagz, Statusz


def ctr(
    requests: dict[str, str] | None = None, limits: dict[str, str] | None = None, **extra: Any
) -> dict[str, Any]:
    return {"name": "c", "resources": {"requests": requests or {}, "limits": limits or {}}, **extra}


def floats(values: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in values.items()}


def test_init_containers_peak_and_sidecars_add() -> None:
    spec = {
        "containers": [ctr({"cpu": "100m"}), ctr({"cpu": "200m", "memory": "1Gi"})],
        "initContainers": [
            ctr({"cpu": "50m"}, restartPolicy="Always"),
            ctr({"cpu": "400m", "memory": "2Gi"}),
        ],
    }
    # running: 300m + sidecar 50m; init peak: 400m + the sidecar before it = 450m
    assert floats(pod_requests(spec)) == {"cpu": 0.45, "memory": 2 * 2**30}


def test_pod_level_resources_and_overhead() -> None:
    spec = {
        "resources": {"requests": {"cpu": "2"}, "limits": {"memory": "1Gi"}},
        "containers": [ctr({"cpu": "100m", "example.com/x": "3"}, {"example.com/x": "3"})],
        "overhead": {"cpu": "250m", "memory": "64Mi"},
    }
    assert floats(pod_requests(spec)) == {"cpu": 2.25, "example.com/x": 3, "memory": 64 * 2**20}
    # overhead is added to limits only where a limit is set
    assert floats(pod_limits(spec)) == {"example.com/x": 3, "memory": 2**30 + 64 * 2**20}


def test_exposition_skips_terminal_bound_pods_and_zero_values() -> None:
    def pod(name: str, node: str, phase: str) -> dict[str, Any]:
        return {
            "metadata": {"namespace": "ns", "name": name},
            "spec": {
                "nodeName": node,
                "schedulerName": "s",
                "priority": 5,
                "containers": [ctr({"cpu": "1", "memory": "0"})],
            },
            "status": {"phase": phase},
        }

    text = render([pod("done", "n1", "Succeeded"), pod("queued", "", "Succeeded")])
    assert text.splitlines()[1:] == [
        "# TYPE kube_pod_resource_request gauge",
        (
            'kube_pod_resource_request{namespace="ns",node="",pod="queued",priority="5",'
            'resource="cpu",scheduler="s",unit="cores"} 1'
        ),
    ]
    assert text.startswith("# HELP kube_pod_resource_request [STABLE] Resources requested by")
    assert render([]) == ""


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (0.3, "0.3"),
        (134217728.0, "1.34217728e+08"),
        (1e-5, "1e-05"),
        (123456.5, "123456.5"),
        (1e6, "1e+06"),
    ],
)
def test_go_float(value: float, text: str) -> None:
    assert go_float(value) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0s"), (0.5, "500ms"), (15, "15s"), (300, "5m0s"), (5400, "1h30m0s"), (90.5, "1m30.5s")],
)
def test_go_duration(seconds: float, text: str) -> None:
    assert go_duration(seconds) == text


def test_flag_values_are_given_or_default() -> None:
    values = flag_values(
        ["--lock-object-name=mine", "--feature-gates=B=true,A=false", "--cert-dir=/c", "--v=3"]
    )
    assert values["leader-elect-resource-name"] == "mine"
    assert values["feature-gates"] == "A=false,B=true"
    assert values["tls-cert-file"] == "/c/kubesched.crt"
    assert values["v"] == "3"
    assert values["leader-elect-lease-duration"] == "15s"
    assert values["vmodule"] == ""
    assert values["tls-cipher-suites"] == "[]"


def test_flagz_negotiation() -> None:
    page = Flagz("kubesched", {"b": "2", "a": "1"}, delimiter="=")
    text = page.answer("")
    assert (text.status, text.content_type) == (200, "text/plain; charset=utf-8")
    assert text.body.split("\n")[1] == "kubesched flagz"
    assert text.body.endswith("\na=1\nb=2\n")
    structured = page.answer("application/json;as=Flagz;v=v1beta1;g=config.k8s.io")
    assert structured.content_type == "application/json;g=config.k8s.io;v=v1beta1;as=Flagz"
    assert json.loads(structured.body)["flags"] == {"a": "1", "b": "2"}
    refused = page.answer("application/json")
    assert refused.status == 406
    assert json.loads(refused.body)["reason"] == "NotAcceptable"


def test_statusz_text() -> None:
    page = Statusz(
        "kubesched", "0.1.0", "1.37", ["/configz", "/flagz"], started=0.0, clock=lambda: 3725.0
    )
    body = page.answer("text/plain").body
    assert "Thu Jan  1 00:00:00 UTC 1970" in body
    assert any(f"Up{d} 1 hr 02 min 05 sec" in body for d in DELIMITERS)
    assert any(f"Paths{d} /configz /flagz" in body for d in DELIMITERS)
