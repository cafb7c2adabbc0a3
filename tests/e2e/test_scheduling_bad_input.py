"""Bad input: malformed config files and unknown plugins stop kubesched at once with a clear
one-line error; a plugin that raises costs one pod a retry, not the scheduler; and the
documented example plugin (docs/writing-plugins.md) is loaded by name and changes placement.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import (
    TEST_LABEL,
    ApiClient,
    ApiError,
    condition,
    is_bound,
    node_name,
    wait_for,
)
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.parity import pod_events, wait_scheduled_by, write_config

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_DIR = REPO / "examples" / "prefer_label"
SCHEDULER = "bad-input-scheduler"
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def errors_of(output: str) -> list[str]:
    """The error lines kubesched printed (`kubesched: ...`)."""
    return [line for line in output.splitlines() if line.startswith("kubesched: ")]


MALFORMED = {
    "invalid-yaml": (
        HEADER + "profiles: [ {schedulerName: x\n",
        r"invalid YAML: line \d+, column \d+",
    ),
    "unknown-field": (
        HEADER + "profile:\n- schedulerName: x\n",
        r'strict decoding error: unknown field "profile" \(.*profile: did you mean "profiles"\?',
    ),
    "unsupported-api-version": (
        HEADER.replace("/v1", "/v1beta9"),
        r'no kind "KubeSchedulerConfiguration" is registered for version "[^"]*/v1beta9"',
    ),
    "wrong-type": (
        HEADER + "percentageOfNodesToScore: lots\n",
        r"percentageOfNodesToScore: must be a whole number, got string 'lots'",
    ),
    "not-a-mapping": ("just a string\n", r"must be a mapping"),
}


@pytest.mark.parametrize("case", list(MALFORMED), ids=list(MALFORMED))
def test_malformed_config_exits_1_with_one_line(
    kubesched: StartKubesched, tmp_path: Path, case: str
) -> None:
    text, expected = MALFORMED[case]
    config = tmp_path / "config.yaml"
    config.write_text(text)
    proc = kubesched(f"--config={config}", ready=False)
    assert proc.wait() == 1
    output = proc.log()
    assert "Traceback" not in output, output
    errors = errors_of(output)
    assert len(errors) == 1, f"expected one error line:\n{output}"
    assert str(config.name) in errors[0], f"the error names the file: {errors[0]}"
    assert re.search(expected, errors[0]), f"{expected!r} not in {errors[0]!r}"


def test_missing_config_file(kubesched: StartKubesched, tmp_path: Path) -> None:
    proc = kubesched(f"--config={tmp_path / 'absent.yaml'}", ready=False)
    assert proc.wait() == 1
    output = proc.log()
    expected = f"kubesched: --config: cannot read {tmp_path / 'absent.yaml'}: No such file"
    assert errors_of(output) == [f"{expected} or directory"], output
    assert "Traceback" not in output


def test_every_config_error_is_reported_at_once(kubesched: StartKubesched, tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(
        HEADER
        + "percentageOfNodesToScore: lots\n"
        + "profiles:\n- schedulerName: x\n"
        + "  plugins: {filter: {enabled: [{name: NodePorts, weight: heavy}]}}\n"
    )
    proc = kubesched(f"--config={config}", ready=False)
    assert proc.wait() == 1
    output = proc.log()
    errors = errors_of(output)
    assert "Traceback" not in output
    assert any("percentageOfNodesToScore" in e for e in errors), output
    assert any("profiles[0].plugins.filter.enabled[0].weight" in e for e in errors), output


def test_unknown_plugin_names_the_plugin_and_the_available_ones(
    kubesched: StartKubesched, tmp_path: Path, local_cluster: LocalCluster
) -> None:
    config = write_config(
        tmp_path / "config.yaml",
        kubeconfig=local_cluster.kubeconfig_path,
        profiles=[
            {
                "schedulerName": SCHEDULER,
                "plugins": {"filter": {"enabled": [{"name": "NodePortz"}]}},
            }
        ],
    )
    proc = kubesched(f"--config={config}", ready=False)
    assert proc.wait() == 1
    output = proc.log()
    assert "Traceback" not in output, output
    errors = errors_of(output)
    assert len(errors) == 1, output
    assert errors[0].startswith(
        f"kubesched: initializing profiles: creating profile for scheduler name {SCHEDULER}: "
        'FilterPlugin "NodePortz" does not exist (enabled at filter; available plugins: '
    )
    available = errors[0].split("available plugins:", 1)[-1]
    for name in ("NodePorts", "NodeResourcesFit", "TaintToleration", "DefaultBinder"):
        assert name in available, errors[0]


def test_unknown_plugin_module(kubesched: StartKubesched, tmp_path: Path) -> None:
    proc = kubesched(
        f"--scheduler-name={SCHEDULER}",
        "--leader-elect=false",
        "--plugin-module=no_such_plugin_module",
        ready=False,
    )
    assert proc.wait() == 1
    output = proc.log()
    assert "Traceback" not in output, output
    errors = errors_of(output)
    assert len(errors) == 1, output
    assert "no_such_plugin_module" in errors[0]


EXPLODING_PLUGIN = '''
"""A Filter that raises for pods labelled explode=true (one line in args.attempts each)."""


class Exploding:
    name = "Exploding"

    def __init__(self, *, args, handle):
        self.attempts = args["attempts"]

    def filter(self, _state, pod, _node_info):
        if pod.labels.get("explode") == "true":
            with open(self.attempts, "a") as attempts:
                attempts.write(pod.name + "\\n")
            raise RuntimeError(f"boom for {pod.name}")
        return None


def register(registry):
    registry.register_class(Exploding)
'''


def test_plugin_that_raises_costs_a_retry_not_the_scheduler(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
) -> None:
    (tmp_path / "exploding_plugin.py").write_text(textwrap.dedent(EXPLODING_PLUGIN))
    attempts = tmp_path / "attempts.txt"
    attempts.touch()
    config = write_config(
        tmp_path / "config.yaml",
        kubeconfig=local_cluster.kubeconfig_path,
        profiles=[
            {
                "schedulerName": SCHEDULER,
                "plugins": {"filter": {"enabled": [{"name": "Exploding"}]}},
                "pluginConfig": [{"name": "Exploding", "args": {"attempts": str(attempts)}}],
            }
        ],
    )
    proc = kubesched(
        f"--config={config}",
        "--plugin-module=exploding_plugin",
        extra_env={"PYTHONPATH": str(tmp_path)},
    )
    api.create(make_node().name("explode-node").obj())
    bomb = make_pod().name("bomb").namespace(namespace).scheduler(SCHEDULER)
    bomb_pod = api.create(bomb.label("explode", "true").obj())
    for i in range(5):
        api.create(make_pod().name(f"fine-{i}").namespace(namespace).scheduler(SCHEDULER).obj())

    pod = wait_for(
        lambda: api.get("Pod", "bomb", namespace=namespace),
        until=lambda p: (condition(p, "PodScheduled") or {}).get("reason") == "SchedulerError",
        timeout=10,
        message="the pod whose Filter raised has PodScheduled=False reason SchedulerError",
    )
    scheduled = condition(pod, "PodScheduled") or {}
    assert scheduled["status"] == "False"
    assert "Exploding" in scheduled["message"]
    assert "boom for bomb" in scheduled["message"]
    events, _core = pod_events(api, namespace, bomb_pod, "FailedScheduling")
    assert events, "a FailedScheduling event for the pod"
    assert events[0].type == "Warning"
    assert events[0].reporting_controller == SCHEDULER
    assert events[0].note == scheduled["message"]

    # The loop goes on: the other pods are placed.
    for i in range(5):
        wait_for(
            lambda i=i: api.get("Pod", f"fine-{i}", namespace=namespace),
            until=is_bound,
            timeout=10,
            message=f"fine-{i} is placed although another pod's Filter raised",
        )
    # The failing pod is retried (with backoff), not dropped.
    wait_for(
        lambda: attempts.read_text().split(),
        until=lambda tried: tried.count("bomb") >= 3,
        timeout=15,
        message="the pod is retried (with backoff): at least 3 attempts",
    )
    assert proc.running()
    assert not node_name(api.get("Pod", "bomb", namespace=namespace))
    # Once the cause is gone, the retry succeeds.
    api.patch("Pod", "bomb", {"metadata": {"labels": {"explode": "false"}}}, namespace=namespace)
    wait_for(
        lambda: api.get("Pod", "bomb", namespace=namespace),
        until=is_bound,
        timeout=15,
        message="the pod is placed once its Filter stops raising",
    )


def test_documented_example_plugin_changes_placement(
    kubesched: StartKubesched,
    api: ApiClient,
    namespace: str,
    local_cluster: LocalCluster,
    tmp_path: Path,
) -> None:
    """examples/prefer_label/profile.yaml, as docs/writing-plugins.md shows it (its Lease
    custom-scheduler-ns/my-custom-scheduler included), plus a control profile without the
    plugin: the plugin's profile picks the labelled node although the other is emptier."""
    profile = yaml.safe_load((EXAMPLE_DIR / "profile.yaml").read_text())
    profile["clientConnection"] = {"kubeconfig": str(local_cluster.kubeconfig_path)}
    profile["profiles"].append({"schedulerName": "control-scheduler"})
    config = tmp_path / "profile.yaml"
    config.write_text(yaml.safe_dump(profile))
    lease = profile["leaderElection"]
    try:
        api.create(
            {
                "apiVersion": "v1",
                "kind": "Namespace",
                "metadata": {"name": lease["resourceNamespace"], "labels": {TEST_LABEL: "true"}},
            }
        )
    except ApiError as error:
        if error.status != 409:
            raise
    plugin_scheduler = profile["profiles"][0]["schedulerName"]
    args = profile["profiles"][0]["pluginConfig"][0]["args"]

    proc = kubesched(
        f"--config={config}",
        "--plugin-module=prefer_label",
        extra_env={"PYTHONPATH": str(EXAMPLE_DIR)},
    )
    # `batch` carries the label but is half full; `plain` is empty.
    api.create(make_node().name("batch").label(args["key"], args["values"][0]).obj())
    api.create(make_node().name("plain").obj())
    filler = make_pod().name("filler").namespace(namespace).node("batch")
    api.create(filler.req(cpu="2", memory="16Gi").obj())
    pods = {}
    for name, scheduler in (("with-plugin", plugin_scheduler), ("control", "control-scheduler")):
        pod = make_pod().name(name).namespace(namespace).scheduler(scheduler)
        pods[name] = api.create(pod.req(cpu="500m", memory="4Gi").obj())
    with_plugin = wait_for(
        lambda: api.get("Pod", "with-plugin", namespace=namespace), until=is_bound, timeout=15
    )
    control = wait_for(
        lambda: api.get("Pod", "control", namespace=namespace), until=is_bound, timeout=15
    )
    assert node_name(control) == "plain", "without the plugin, the emptier node wins"
    assert node_name(with_plugin) == "batch", "PreferNodeLabel (weight 5) picks the labelled node"
    assert wait_scheduled_by(api, namespace, pods["with-plugin"]) == {plugin_scheduler}
    assert "PreferNodeLabel" in proc.log()
    assert proc.stop() == 0
    api.delete("Lease", lease["resourceName"], namespace=lease["resourceNamespace"])
