"""kubesched refuses the config files kube-scheduler v1.37.2's `--write-config-to` refuses, with
its text: `kubesched --write-config-to`, `kubesched manifests` and `kubesched manifests
--helm-chart` run on the same bad files as the real kube-scheduler, built here.

No control plane: kube-scheduler builds its profiles before it would ever connect, so it runs
with `--master` at a closed port (without an API server address it stops earlier, at "no
configuration has been provided"; it never calls it) and `--secure-port=0` (it serves
nothing). Its error is its `"command failed" err="..."` log line; the wrapping
`initializing profiles: creating profile for scheduler name NAME: ` is taken off, and kubesched
must name that profile (`profile 'NAME': `) and contain the rest in its one error line.

Where kube-scheduler has no text, the test says why: a `pluginConfig` for a plugin that does
not exist is ignored by kube-scheduler (it reads only the args of the plugins it builds) and
refused by kubesched as the typo it usually is; `--plugin-module` is kubesched's own flag
(kube-scheduler's plugins are compiled in).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kubesched.apis.config import EXTENSION_POINTS
from kubesched.localcluster import LocalClusterError, ensure_binaries

PROFILE = "my-scheduler"
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
# An address where nothing listens: kube-scheduler needs one to get to its profiles.
NO_API_SERVER = "http://127.0.0.1:1"
_COMMAND_FAILED = re.compile(r'"command failed" err="((?:[^"\\]|\\.)*)"')
_PROFILE_WRAPPER = re.compile(
    r"^initializing profiles: creating profile for scheduler name (?P<name>[^:]+): "
)


@pytest.fixture(autouse=True)
def _e2e_isolation() -> None:
    """Nothing here talks to a cluster: the shared control plane is not needed."""
    return


@pytest.fixture(scope="module")
def kube_scheduler() -> Path:
    try:
        return ensure_binaries().kube_scheduler
    except LocalClusterError as error:
        pytest.fail(f"no kube-scheduler binary: {error}", pytrace=False)


def enabling(point: str, name: str) -> str:
    return f"""
        profiles:
        - schedulerName: {PROFILE}
          plugins:
            {point}:
              enabled:
              - name: {name}
        """


def with_args(plugin: str, args: str) -> str:
    return f"""
        profiles:
        - schedulerName: {PROFILE}
          pluginConfig:
          - name: {plugin}
            args: {args}
        """


def spread(constraints: str, *, defaulting: str = "List") -> str:
    return with_args(
        "PodTopologySpread", f"{{defaultingType: {defaulting}, defaultConstraints: {constraints}}}"
    )


ZONE = "topologyKey: topology.kubernetes.io/zone"
CASES = {
    **{
        f"unknown-plugin-at-{point}": enabling(point, "NodeResorcesFit")
        for point in EXTENSION_POINTS
    },
    "plugin-config-twice": f"""
        profiles:
        - schedulerName: {PROFILE}
          pluginConfig:
          - {{name: NodeResourcesFit, args: {{}}}}
          - {{name: NodeResourcesFit, args: {{}}}}
        """,
    "fit-scoring-strategy-type": with_args("NodeResourcesFit", "{scoringStrategy: {type: Foo}}"),
    "inter-pod-affinity-weight-over": with_args("InterPodAffinity", "{hardPodAffinityWeight: 101}"),
    "inter-pod-affinity-weight-under": with_args("InterPodAffinity", "{hardPodAffinityWeight: -1}"),
    "spread-max-skew": spread(f"[{{maxSkew: 0, {ZONE}, whenUnsatisfiable: DoNotSchedule}}]"),
    "spread-when-unsatisfiable": spread(f"[{{maxSkew: 1, {ZONE}, whenUnsatisfiable: Never}}]"),
    "spread-system-with-constraints": spread(
        f"[{{maxSkew: 1, {ZONE}, whenUnsatisfiable: DoNotSchedule}}]", defaulting="System"
    ),
    "spread-label-selector": spread(
        f"[{{maxSkew: 1, {ZONE}, whenUnsatisfiable: DoNotSchedule, labelSelector: {{}}}}]"
    ),
    "spread-repeated-constraint": spread(
        f"[{{maxSkew: 1, {ZONE}, whenUnsatisfiable: DoNotSchedule}},"
        f" {{maxSkew: 2, {ZONE}, whenUnsatisfiable: DoNotSchedule}}]"
    ),
    "preemption-percentage": with_args("DefaultPreemption", "{minCandidateNodesPercentage: 101}"),
    "args-unknown-fields": with_args("InterPodAffinity", "{foo: 1, bar: 2}"),
    "args-unknown-nested-field": with_args(
        "NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, foo: 1}}"
    ),
    # Several errors at once: kube-scheduler lists them all, `[a, b]`, and so must kubesched.
    "preemption-both-zero": with_args(
        "DefaultPreemption", "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}"
    ),
    "spread-every-constraint-error": spread(
        "[{maxSkew: 0, topologyKey: 'a b', whenUnsatisfiable: Never, labelSelector: {}}]"
    ),
    "spread-topology-key-prefix": spread(
        "[{maxSkew: 1, topologyKey: 'Bad_Prefix/zone', whenUnsatisfiable: DoNotSchedule}]"
    ),
    "fit-ratio-missing": with_args(
        "NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio}}"
    ),
    "fit-ratio-forbidden": with_args(
        "NodeResourcesFit",
        "{scoringStrategy: {type: MostAllocated, requestedToCapacityRatio: {shape: []}}}",
    ),
    "fit-names-type-weight": with_args(
        "NodeResourcesFit",
        "{ignoredResources: ['bad name!'], ignoredResourceGroups: ['x/y/z'],"
        " scoringStrategy: {type: Foo, resources: [{name: cpu, weight: -3}]}}",
    ),
    "balanced-weight-and-duplicate": with_args(
        "NodeResourcesBalancedAllocation", "{resources: [{name: cpu, weight: 3}, {name: cpu}]}"
    ),
    "volume-binding-timeout-and-shape": with_args(
        "VolumeBinding", "{bindTimeoutSeconds: -1, shape: [{utilization: 101, score: 11}]}"
    ),
    "node-affinity-requirements": with_args(
        "NodeAffinity",
        "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms:"
        " [{matchExpressions: [{key: 'a b', operator: In}, {key: k, operator: Exists, values: [x]},"
        " {key: g, operator: Gt, values: [x, '2']}, {key: v, operator: In, values: ['bad value!']},"
        " {key: o, operator: Foo}],"
        " matchFields: [{key: metadata.name, operator: In, values: [a, b]}]}]},"
        " preferredDuringSchedulingIgnoredDuringExecution: [{weight: 3, preference:"
        " {matchExpressions: [{key: a, operator: Lt}]}}]}}",
    ),
}


def write(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    return path


def run(argv: list[str | Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in argv], capture_output=True, text=True, timeout=60, check=False
    )


def kube_scheduler_error(binary: Path, config: Path, tmp_path: Path) -> str:
    """kube-scheduler's error for `config` (it must fail), without the profile wrapper."""
    written = tmp_path / "kube-scheduler-wrote.yaml"
    result = run(
        [
            binary,
            f"--config={config}",
            f"--write-config-to={written}",
            f"--master={NO_API_SERVER}",
            "--secure-port=0",
        ]
    )
    assert result.returncode == 1, result.stderr
    assert not written.exists()
    found = _COMMAND_FAILED.findall(result.stderr)
    assert len(found) == 1, result.stderr
    error: str = json.loads(f'"{found[0]}"')
    wrapper = _PROFILE_WRAPPER.match(error)
    if wrapper is not None:
        assert wrapper["name"] == PROFILE, error
        error = error.removeprefix(wrapper[0])
    return error


def kubesched_errors(config: Path, tmp_path: Path, *flags: str) -> dict[str, str]:
    """The one error line of each kubesched command on `config` (each must exit 1, print
    nothing on stdout and write no chart), by command."""
    chart = tmp_path / "chart"
    commands: dict[str, tuple[str, list[str]]] = {
        "--write-config-to": ("kubesched", ["--write-config-to=-"]),
        "manifests": ("kubesched manifests", ["manifests"]),
        "manifests --helm-chart": ("kubesched manifests", ["manifests", f"--helm-chart={chart}"]),
    }
    errors = {}
    for command, (prog, args) in commands.items():
        result = run([sys.executable, "-m", "kubesched", *args, f"--config={config}", *flags])
        assert result.returncode == 1, (command, result.stderr)
        assert result.stdout == "", command
        assert "Traceback" not in result.stderr, result.stderr
        lines = [line for line in result.stderr.splitlines() if line.startswith(f"{prog}: ")]
        assert len(lines) == 1, (command, result.stderr)
        errors[command] = lines[0].removeprefix(f"{prog}: ")
    assert not chart.exists()
    return errors


@pytest.mark.parametrize("case", CASES)
def test_kubesched_refuses_what_kube_scheduler_refuses_with_its_text(
    kube_scheduler: Path, tmp_path: Path, case: str
) -> None:
    config = write(tmp_path, case, CASES[case])
    expected = kube_scheduler_error(kube_scheduler, config, tmp_path)
    errors = kubesched_errors(config, tmp_path)
    assert len(set(errors.values())) == 1, errors  # the same check, the same line
    line = errors["--write-config-to"]
    assert expected in line, f"kube-scheduler: {expected}\nkubesched:      {line}"
    if _is_profile_error(expected):
        assert line.startswith(f"profile '{PROFILE}': "), line


TOP_LEVEL_CASES = {
    "parallelism": f"parallelism: 0\nprofiles: [{{schedulerName: {PROFILE}}}]\n",
    "lease-not-longer-than-renew": (
        "leaderElection: {leaderElect: true, leaseDuration: 5s, renewDeadline: 10s}\n"
        f"profiles: [{{schedulerName: {PROFILE}}}]\n"
    ),
}
"""Fields of the file itself (not of a profile's plugins): kube-scheduler's text, then ours."""


@pytest.mark.parametrize("case", TOP_LEVEL_CASES)
def test_bad_top_level_fields_are_refused_with_kube_schedulers_text(
    kube_scheduler: Path, tmp_path: Path, case: str
) -> None:
    config = write(tmp_path, case, TOP_LEVEL_CASES[case])
    expected = kube_scheduler_error(kube_scheduler, config, tmp_path)
    line = kubesched_errors(config, tmp_path)["--write-config-to"]
    assert line.startswith(expected), f"kube-scheduler: {expected}\nkubesched:      {line}"


def _is_profile_error(error: str) -> bool:
    """kube-scheduler's framework errors (wrapped with the profile), not its file's."""
    return not error.startswith("profiles[")


def test_plugin_config_for_no_plugin_kube_scheduler_ignores_kubesched_refuses(
    kube_scheduler: Path, tmp_path: Path
) -> None:
    config = write(tmp_path, "no-such-plugin", with_args("InterPodAfinity", "{}"))
    written = tmp_path / "kube-scheduler-wrote.yaml"
    result = run(
        [
            kube_scheduler,
            f"--config={config}",
            f"--write-config-to={written}",
            f"--master={NO_API_SERVER}",
            "--secure-port=0",
        ]
    )
    assert result.returncode == 0, result.stderr
    assert "InterPodAfinity" not in written.read_text()  # dropped without a word
    for line in kubesched_errors(config, tmp_path).values():
        assert line.startswith(
            f"profile '{PROFILE}': pluginConfig names plugin 'InterPodAfinity', which does not "
            "exist; available plugins: "
        ), line


def test_a_plugin_module_that_cannot_be_imported_is_refused(tmp_path: Path) -> None:
    config = write(tmp_path, "plain", f"profiles: [{{schedulerName: {PROFILE}}}]")
    for line in kubesched_errors(config, tmp_path, "--plugin-module=does_not_exist").values():
        assert line == (
            "--plugin-module does_not_exist: cannot import it: ModuleNotFoundError: No module "
            "named 'does_not_exist'; make it importable here: pip install its package, or add "
            "its folder to PYTHONPATH"
        )
