"""`/metrics/resources`, `/metrics/slis`, `/flagz` and `/statusz` as kube-scheduler v1.37.2
serves them: both
schedulers on one control plane, the same requests to each (the admin token, authorized by
the API server), compared for status, content type, Cache-Control, the text pages' header
lines and field names, the structured (`config.k8s.io/v1beta1`) objects, and, for the
resource metrics, every series of the test's pods.
"""

from __future__ import annotations

import json
import re
import ssl
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from kubesched.localcluster import LocalCluster
from kubesched.server.zpages import DELIMITERS
from kubesched.testing import make_node
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.kubesched import KubeschedProcess, start_kubesched

SCHEDULER = "zpages-scheduler"
FLAGZ_JSON = "application/json;as=Flagz;v=v1beta1;g=config.k8s.io"
STATUSZ_JSON = "application/json;as=Statusz;v=v1beta1;g=config.k8s.io"
STATUS_FIELDS = ("Started", "Up", "Go version", "Binary version", "Emulation version", "Paths")


def fetch(port: int, path: str, token: str, accept: str = "") -> tuple[int, dict[str, str], str]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(f"https://127.0.0.1:{port}{path}")
    request.add_header("Authorization", f"Bearer {token}")
    if accept:
        request.add_header("Accept", accept)
    try:
        with urllib.request.urlopen(request, timeout=20, context=context) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def container(name: str, **resources: dict[str, str]) -> dict[str, Any]:
    return {"name": name, "image": "registry.k8s.io/pause:3.10", "resources": resources}


def pods(namespace: str) -> list[dict[str, Any]]:
    """Containers, init containers (one a sidecar), limits, an extended resource, an
    overhead, pod-level resources; pending for a scheduler nobody runs, and placed."""
    mixed = {
        "containers": [
            container("a", requests={"cpu": "100m", "memory": "64Mi"}, limits={"memory": "128Mi"}),
            container("b", requests={"cpu": "200m", "ephemeral-storage": "1Gi"}),
        ],
        "initContainers": [
            container("init", requests={"cpu": "1"}, limits={"cpu": "2"}),
            {**container("side", requests={"cpu": "50m"}), "restartPolicy": "Always"},
        ],
    }
    gpu = {
        "containers": [
            container(
                "g",
                requests={"cpu": "300m", "example.com/gpu": "1"},
                limits={"example.com/gpu": "1"},
            ),
        ],
    }
    pod_level = {
        "resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
        "containers": [container("c", requests={"cpu": "100m"})],
    }
    specs = {
        "ours-mixed": {**mixed, "schedulerName": SCHEDULER},
        "theirs-mixed": mixed,
        "nobodys-gpu": {**gpu, "schedulerName": "no-such-scheduler"},
        "ours-pod-level": {**pod_level, "schedulerName": SCHEDULER},
    }
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace},
            "spec": spec,
        }
        for name, spec in specs.items()
    ]


def series(text: str, namespace: str) -> set[str]:
    return {line for line in text.splitlines() if f'namespace="{namespace}"' in line}


def started(local_cluster: LocalCluster, tmp_path: Path) -> KubeschedProcess:
    proc = start_kubesched(
        local_cluster.kubeconfig_path,
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        "--kube-api-qps=77",
        workdir=tmp_path,
        token=local_cluster.admin_token,
    )
    proc.wait_ready()
    return proc


def test_resource_metrics_as_kube_scheduler(
    local_cluster: LocalCluster, api: ApiClient, namespace: str, tmp_path: Path
) -> None:
    api.create(
        make_node()
        .name("zpages-node")
        .capacity(cpu="8", memory="16Gi", ephemeral_storage="10Gi")
        .obj()
    )
    for pod in pods(namespace):
        api.create(pod, namespace=namespace)
    proc = started(local_cluster, tmp_path)
    try:
        for name in ("ours-mixed", "theirs-mixed", "ours-pod-level"):
            wait_for(lambda n=name: api.get("Pod", n, namespace=namespace), until=is_bound)
        token, port = local_cluster.admin_token, local_cluster.scheduler_port
        assert port is not None
        theirs = fetch(port, "/metrics/resources", token)
        ours = fetch(proc.port, "/metrics/resources", token)
        assert ours[0] == theirs[0] == 200
        for header in ("Content-Type", "Cache-Control"):
            assert ours[1][header] == theirs[1][header], header
        found = series(ours[2], namespace)
        assert found == series(theirs[2], namespace)
        for name in ("ours-mixed", "theirs-mixed", "nobodys-gpu", "ours-pod-level"):
            assert any(f'pod="{name}"' in line for line in found), (name, sorted(found))
        assert 'pod="nobodys-gpu",priority="0",resource="example.com/gpu",' in ours[2]
        heads = [line for line in ours[2].splitlines() if line.startswith("#")]
        assert heads == [line for line in theirs[2].splitlines() if line.startswith("#")]
    finally:
        assert proc.stop() == 0, proc.tail()


def _text_page(body: str, component: str, page: str) -> list[str]:
    lines = body.split("\n")
    assert lines[:3] == ["", f"{component} {page}", lines[2]], body
    assert lines[2].startswith("Warning: This endpoint is not meant to be machine parseable")
    return lines[3:]


def _fields(lines: list[str]) -> list[str]:
    names = []
    for line in lines:
        if line:
            match = re.match(r"^([A-Za-z ]+?)(?:: |:|=| )\s", line)
            assert match, line
            names.append(match.group(1))
    return names


def test_flagz_and_statusz_as_kube_scheduler(local_cluster: LocalCluster, tmp_path: Path) -> None:
    proc = started(local_cluster, tmp_path)
    try:
        token, port = local_cluster.admin_token, local_cluster.scheduler_port
        assert port is not None
        for path, accept in (("/flagz", FLAGZ_JSON), ("/statusz", STATUSZ_JSON)):
            older = accept.replace("v1beta1", "v1alpha1")
            as_yaml = accept.replace("application/json", "application/yaml")
            for media in (
                "",
                "text/plain",
                accept,
                older,
                as_yaml,
                "application/json",
                "text/html",
            ):
                ours, theirs = fetch(proc.port, path, token, media), fetch(port, path, token, media)
                assert ours[0] == theirs[0], (path, media, ours, theirs)
                for header in ("Content-Type", "Cache-Control", "Warning"):
                    assert ours[1].get(header) == theirs[1].get(header), (path, media, header)
                if media == as_yaml:
                    mine, upstream = yaml.safe_load(ours[2]), yaml.safe_load(theirs[2])
                    assert set(mine) == set(upstream)
                    assert mine["apiVersion"] == upstream["apiVersion"]
                if ours[0] == 406:
                    assert json.loads(ours[2]) == json.loads(theirs[2])
        flags = json.loads(fetch(proc.port, "/flagz", token, FLAGZ_JSON)[2])
        upstream = json.loads(fetch(port, "/flagz", token, FLAGZ_JSON)[2])
        assert flags["apiVersion"] == upstream["apiVersion"]
        assert flags["kind"] == upstream["kind"]
        assert flags["metadata"] == {"name": "kubesched"}
        assert set(upstream["flags"]) <= set(flags["flags"])
        assert set(flags["flags"]) - set(upstream["flags"]) == {
            "plugin-module",
            "scheduler-name",
            "shadow-scheduler-name",
            "pod-initial-backoff-seconds",
            "pod-max-backoff-seconds",
        }
        given = {
            "config",
            "kubeconfig",
            "bind-address",
            "secure-port",
            "cert-dir",
            "v",
            "authentication-kubeconfig",
            "authorization-kubeconfig",
            "leader-elect",
            "authentication-skip-lookup",
            "tls-cert-file",
            "tls-private-key-file",
            "kube-api-qps",
        }
        defaults = {k: v for k, v in upstream["flags"].items() if k not in given}
        assert {k: flags["flags"][k] for k in defaults} == defaults
        assert flags["flags"]["kube-api-qps"] == "77"
        assert flags["flags"]["leader-elect"] == "false"
        assert flags["flags"]["bind-address"] == upstream["flags"]["bind-address"]
        text = _text_page(fetch(proc.port, "/flagz", token)[2], "kubesched", "flagz")
        assert any(
            text == [*(f"{k}{d}{v}" for k, v in sorted(flags["flags"].items())), ""]
            for d in DELIMITERS
        ), text
        ours_status = json.loads(fetch(proc.port, "/statusz", token, STATUSZ_JSON)[2])
        theirs_status = json.loads(fetch(port, "/statusz", token, STATUSZ_JSON)[2])
        assert set(ours_status) == set(theirs_status)
        assert ours_status["paths"] == theirs_status["paths"]
        assert ours_status["emulationVersion"] == theirs_status["emulationVersion"] == "1.37"
        assert ours_status["uptimeSeconds"] >= 0
        for body, component in (
            (fetch(proc.port, "/statusz", token)[2], "kubesched"),
            (fetch(port, "/statusz", token)[2], "kube-scheduler"),
        ):
            assert _fields(_text_page(body, component, "statusz")) == list(STATUS_FIELDS), body
    finally:
        assert proc.stop() == 0, proc.tail()


def _sli_lines(text: str, checks: set[str]) -> set[str]:
    """The HELP/TYPE lines of the healthcheck families, and their samples (parsed: Go
    prints 1 where Python prints 1.0) for the checks both schedulers run."""
    kept = {line for line in text.splitlines() if line.startswith("# ") and "healthcheck" in line}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("kubernetes_healthcheck") and sample.labels["name"] in checks:
                if sample.labels["type"] == "livez":
                    continue
                labels = sorted(sample.labels.items())
                kept.add(f"{sample.name} {labels} {float(sample.value)}")
    return kept


def test_health_slis_as_kube_scheduler(local_cluster: LocalCluster, tmp_path: Path) -> None:
    proc = started(local_cluster, tmp_path)
    try:
        token, port = local_cluster.admin_token, local_cluster.scheduler_port
        assert port is not None
        for target in (port, proc.port):
            assert fetch_method(target, "/metrics/slis", token, "DELETE")[2] == "metrics reset\n"
            for path in ("/healthz", "/healthz", "/readyz", "/livez?exclude=ping"):
                assert fetch(target, path, token)[0] == 200
        ours, theirs = fetch(proc.port, "/metrics/slis", token), fetch(port, "/metrics/slis", token)
        assert ours[0] == theirs[0] == 200
        for header in ("Content-Type", "Cache-Control"):
            assert ours[1][header] == theirs[1][header], header
        # The checks both run on /healthz and /readyz (kube-scheduler's /livez runs only
        # ping, excluded here; its /readyz adds `shutdown`, kubesched's /healthz `informers`).
        common = {"leaderElection", "sched-handler-sync"}
        assert _sli_lines(ours[2], common) == _sli_lines(theirs[2], common)
        two = (
            'kubernetes_healthchecks_total{name="leaderElection",status="success",type="healthz"}'
            " 2.0"
        )
        assert two in ours[2], "two requests to /healthz, each ran leaderElection once"
        assert 'name="ping"' not in ours[2], "/livez?exclude=ping did not run ping"
        assert "process_start_time_seconds " in ours[2]
    finally:
        assert proc.stop() == 0, proc.tail()


def fetch_method(port: int, path: str, token: str, method: str) -> tuple[int, dict[str, str], str]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    request = urllib.request.Request(f"https://127.0.0.1:{port}{path}", method=method)
    request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=20, context=context) as response:
        return response.status, dict(response.headers), response.read().decode()
