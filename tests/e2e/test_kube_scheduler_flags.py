"""kube-scheduler's command lines run unchanged: kubeadm's static-pod args verbatim, and the
flags for features kubesched lacks are accepted with one notice each."""

from __future__ import annotations

import json
import re
import subprocess

from kubesched.config.flags import parse_options
from kubesched.config.flagtable import BY_NAME, Kind
from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.test_serving import https_get

# kubeadm's kube-scheduler static pod (`/etc/kubernetes/manifests/kube-scheduler.yaml`), with
# its kubeconfig path pointed at the test cluster's.
KUBEADM_ARGS = (
    "--authentication-kubeconfig={kubeconfig}",
    "--authorization-kubeconfig={kubeconfig}",
    "--bind-address=127.0.0.1",
    "--kubeconfig={kubeconfig}",
    "--leader-elect=true",
)


def test_kubeadm_static_pod_args_run_verbatim(
    kubesched: StartKubesched, api: ApiClient, namespace: str, local_cluster: LocalCluster
) -> None:
    api.create(make_node().name("kubeadm-node").obj())
    args = [arg.format(kubeconfig=local_cluster.kubeconfig_path) for arg in KUBEADM_ARGS]
    proc = kubesched(*args, name="kubeadm")
    pod = make_pod().name("p").namespace(namespace).scheduler("kubesched").obj()
    api.create(pod)
    wait_for(lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="bound")
    log = proc.wait_log('"successfully acquired lease" lease="kube-system/kubesched"')
    assert "accepted:" not in log, "kubeadm's args need no notice"
    # The secure port reviews callers through --authentication-kubeconfig's API server.
    assert proc.get("/metrics")[0] == 200
    assert proc.get("/metrics", token="not-a-token")[0] == 401


def test_flags_for_missing_features_are_accepted_with_one_notice_each(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    api.create(make_node().name("flags-node").obj())
    proc = kubesched(
        "--scheduler-name=flags-scheduler",
        "--leader-elect=false",
        "--profiling=true",
        "--contention-profiling=true",
        "--feature-gates=SchedulerQueueingHints=true",
        "--log-flush-frequency=5s",
        "--tls-min-version=VersionTLS13",
        "--disabled-metrics=scheduler_pending_pods",
        "--pod-max-in-unschedulable-pods-duration=2m",
        name="flags",
    )
    pod = make_pod().name("p").namespace(namespace).scheduler("flags-scheduler").obj()
    api.create(pod)
    wait_for(lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="bound")
    log = proc.tail(200)
    for flag in ("--profiling", "--contention-profiling", "--log-flush-frequency"):
        assert log.count(f"flag {flag} is accepted") == 1, log
    assert log.count("--feature-gates: SchedulerQueueingHints accepted") == 1
    metrics = proc.get("/metrics")[1]
    assert "scheduler_schedule_attempts_total" in metrics
    assert "scheduler_pending_pods" not in metrics, "--disabled-metrics hides the family"


def test_every_flag_of_the_built_kube_scheduler_is_known(local_cluster: LocalCluster) -> None:
    """Read `kube-scheduler --help` of the binary the tests run and parse each of its flags."""
    binary = local_cluster.binaries.kube_scheduler  # type: ignore[union-attr]
    text = subprocess.run(
        [str(binary), "--help"], capture_output=True, text=True, check=False, timeout=30
    ).stdout
    names = sorted(set(re.findall(r"^\s+(?:-\w, )?--([a-z0-9-]+)", text, re.MULTILINE)))
    assert len(names) > 50, text[:500]
    unknown = [name for name in names if name not in BY_NAME]
    assert not unknown, f"kube-scheduler flags kubesched does not know: {unknown}"
    for name in names:
        flag = BY_NAME[name]
        options = parse_options([f"--{name}={SAMPLE.get(flag.kind, 'x')}"])
        assert not [e for e in options.errors if "unknown flag" in e], (name, options.errors)


SAMPLE = {Kind.DURATION: "5s", Kind.INT: "1", Kind.FLOAT: "1", Kind.BOOL: "false"}


def test_configz_matches_kube_schedulers_for_the_plugins_both_have(
    kubesched: StartKubesched, local_cluster: LocalCluster
) -> None:
    """The same `/configz` document as kube-scheduler: JSON under `componentconfig`, the
    default plugins in the same order with the same weights, the same default args."""
    proc = kubesched("--scheduler-name=configz-scheduler", "--leader-elect=false")
    token = local_cluster.admin_token
    ours = json.loads(https_get(proc.port, "/configz", token)[1])["componentconfig"]
    port = local_cluster.scheduler_port
    assert port is not None
    theirs = json.loads(https_get(port, "/configz", token)[1])["componentconfig"]
    assert ours["kind"] == theirs["kind"] == "KubeSchedulerConfiguration"
    assert set(ours) <= set(theirs), set(ours) - set(theirs)
    (our_profile,) = ours["profiles"]
    (their_profile,) = theirs["profiles"]
    ours_enabled = our_profile["plugins"]["multiPoint"]["enabled"]
    have = {plugin["name"] for plugin in ours_enabled}
    theirs_enabled = [
        p for p in their_profile["plugins"]["multiPoint"]["enabled"] if p["name"] in have
    ]
    assert ours_enabled == theirs_enabled
    their_args = {c["name"]: c["args"] for c in their_profile["pluginConfig"]}
    for entry in our_profile["pluginConfig"]:
        assert entry["args"] == their_args[entry["name"]], entry["name"]


def test_health_endpoints_answer_as_kube_schedulers(
    kubesched: StartKubesched, local_cluster: LocalCluster
) -> None:
    """`?verbose` lists each check as kube-scheduler does, with its check names."""
    proc = kubesched("--scheduler-name=health-scheduler", "--leader-elect=false")
    port = local_cluster.scheduler_port
    assert port is not None
    theirs = https_get(port, "/readyz?verbose")
    ours = https_get(proc.port, "/readyz?verbose")
    assert theirs[0] == ours[0] == 200
    assert ours[1].endswith("readyz check passed\n")
    assert "[+]sched-handler-sync ok" in theirs[1]
    assert "[+]sched-handler-sync ok" in ours[1]
    assert https_get(proc.port, "/livez?verbose")[1].startswith("[+]ping ok\n")
    # A single check is not an always-allowed path (as upstream): it needs an authorized token.
    assert https_get(proc.port, "/readyz/sched-handler-sync")[0] == 401
    token = local_cluster.admin_token
    assert https_get(proc.port, "/readyz/sched-handler-sync", token) == (200, "ok")
    assert https_get(proc.port, "/healthz") == (200, "ok")
