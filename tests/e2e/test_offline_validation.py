"""kubesched refuses the config files kube-scheduler v1.37.2's `--write-config-to` refuses, with
its text, and accepts those it accepts: `kubesched --write-config-to`, `kubesched manifests` and
`kubesched manifests --helm-chart` run on the same files as the real kube-scheduler, built here.

The files and what kube-scheduler said about each when they were probed live in
`offline_validation_cases.yaml` (95 of them, 89 refused). Each test runs kube-scheduler again
and checks that it still says exactly that, then that kubesched's one error line is the same
text (kubesched's hints may follow in parentheses): every problem of the file in one line,
aggregated as kube-scheduler aggregates them (`[a, b, c]`).

No control plane: kube-scheduler builds its profiles before it would ever connect, so it runs
with `--master` at a closed port (without an API server address it stops earlier, at "no
configuration has been provided"; it never calls it) and `--secure-port=0` (it serves
nothing). Its error is its `"command failed" err="..."` log line.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubesched.localcluster import LocalClusterError, ensure_binaries

PROFILE = "my-scheduler"
HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
# An address where nothing listens: kube-scheduler needs one to get to its profiles.
NO_API_SERVER = "http://127.0.0.1:1"
_COMMAND_FAILED = re.compile(r'"command failed" err="((?:[^"\\]|\\.)*)"')
CASES: dict[str, dict[str, Any]] = {
    case["name"]: case
    for case in yaml.safe_load(
        (Path(__file__).with_name("offline_validation_cases.yaml")).read_text(encoding="utf-8")
    )
}
# The commands are the same check; all three run on these (the others: --write-config-to).
EVERY_COMMAND = {
    "parallelism-zero",
    "errors-across-profiles-and-top-level",
    "fit-names-type-weight",
    "unknown-plugin-at-preFilter",
    "args-unknown-nested-field",
    "two-queue-sort-plugins",
    "unknown-top-level-field",
    "renew-zero",
}


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


def write(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(body if body.startswith("apiVersion") else HEADER + body, encoding="utf-8")
    return path


def run(argv: list[str | Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in argv], capture_output=True, text=True, timeout=60, check=False
    )


def kube_scheduler_says(binary: Path, config: Path, tmp_path: Path) -> str | None:
    """kube-scheduler's error for `config`, or None when it accepts (writes) it."""
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
    if result.returncode == 0:
        assert written.exists(), result.stderr
        return None
    assert result.returncode == 1, result.stderr
    assert not written.exists()
    found = _COMMAND_FAILED.findall(result.stderr)
    assert len(found) == 1, result.stderr
    error: str = json.loads(f'"{found[0]}"')
    return error


def kubesched_lines(config: Path, tmp_path: Path, commands: list[str]) -> dict[str, str | None]:
    """The one error line of each kubesched command on `config` (None when it accepts the
    file); a refusal exits 1, prints nothing on stdout and writes no chart."""
    chart = tmp_path / "chart"
    every: dict[str, tuple[str, list[str]]] = {
        "--write-config-to": ("kubesched", [f"--write-config-to={tmp_path / 'wrote.yaml'}"]),
        "manifests": ("kubesched manifests", ["manifests"]),
        "manifests --helm-chart": ("kubesched manifests", ["manifests", f"--helm-chart={chart}"]),
    }
    lines: dict[str, str | None] = {}
    for command in commands:
        prog, args = every[command]
        result = run([sys.executable, "-m", "kubesched", *args, f"--config={config}"])
        assert "Traceback" not in result.stderr, result.stderr
        if result.returncode == 0:
            lines[command] = None
            continue
        assert result.returncode == 1, (command, result.stderr)
        assert result.stdout == "", command
        errors = [line for line in result.stderr.splitlines() if line.startswith(f"{prog}: ")]
        assert len(errors) == 1, (command, result.stderr)
        lines[command] = errors[0].removeprefix(f"{prog}: ")
        assert not chart.exists()
    return lines


def says_the_same(line: str | None, expected: str | None, *, more: bool) -> bool:
    """kubesched's line is kube-scheduler's text, then at most its hints; with `more`,
    kube-scheduler's text is the first of kubesched's aggregate."""
    if expected is None or line is None:
        return line == expected
    if more:
        return line.startswith(f"[{expected}, ")
    return line == expected or line.startswith(f"{expected} (")


@pytest.mark.parametrize("name", CASES)
def test_kubesched_says_what_kube_scheduler_says(
    kube_scheduler: Path, tmp_path: Path, name: str
) -> None:
    case = CASES[name]
    config = write(tmp_path, name, case["config"])
    expected = case["kube-scheduler"]
    assert kube_scheduler_says(kube_scheduler, config, tmp_path) == expected
    commands = ["--write-config-to"]
    if name in EVERY_COMMAND:
        commands += ["manifests", "manifests --helm-chart"]
    lines = kubesched_lines(config, tmp_path, commands)
    assert len(set(lines.values())) == 1, lines  # the same check, the same line
    line = lines["--write-config-to"]
    more = str(case.get("kubesched", "")).startswith("more:")
    assert says_the_same(line, expected, more=more), (
        f"kube-scheduler: {expected}\nkubesched:      {line}"
    )


def test_the_cases_are_many_and_mostly_refused() -> None:
    """At least 60 bad files (issue 46); the accepted ones check kubesched refuses no more."""
    refused = [name for name, case in CASES.items() if case["kube-scheduler"] is not None]
    assert len(refused) >= 60
    assert len(CASES) - len(refused) >= 3


def test_plugin_config_for_no_plugin_is_ignored_as_kube_scheduler_ignores_it(
    kube_scheduler: Path, tmp_path: Path
) -> None:
    body = (
        f"profiles:\n- schedulerName: {PROFILE}\n  pluginConfig:\n"
        "  - name: InterPodAfinity\n    args: {hardPodAffinityWeight: 5}\n"
    )
    config = write(tmp_path, "no-such-plugin", body)
    assert kube_scheduler_says(kube_scheduler, config, tmp_path) is None
    assert "InterPodAfinity" not in (tmp_path / "kube-scheduler-wrote.yaml").read_text()
    written = tmp_path / "kubesched-wrote.yaml"
    result = run(
        [sys.executable, "-m", "kubesched", f"--config={config}", f"--write-config-to={written}"]
    )
    assert result.returncode == 0, result.stderr
    assert "InterPodAfinity" not in written.read_text()  # dropped, as kube-scheduler drops it
    assert (
        "profiles[0].pluginConfig[0]: plugin 'InterPodAfinity' does not exist, so its args are "
        "ignored (as kube-scheduler ignores them); did you mean InterPodAffinity?"
    ) in result.stderr.splitlines()


def test_a_plugin_module_that_cannot_be_imported_is_refused(tmp_path: Path) -> None:
    """`--plugin-module` is kubesched's own flag (kube-scheduler's plugins are compiled in)."""
    config = write(tmp_path, "plain", f"profiles: [{{schedulerName: {PROFILE}}}]")
    for prog, args in (("kubesched", ["--write-config-to=-"]), ("kubesched manifests", [])):
        head = ["manifests"] if prog.endswith("manifests") else []
        result = run(
            [
                sys.executable,
                "-m",
                "kubesched",
                *head,
                *args,
                f"--config={config}",
                "--plugin-module=does_not_exist",
            ]
        )
        assert result.returncode == 1
        expected = (
            f"{prog}: --plugin-module does_not_exist: cannot import it: ModuleNotFoundError: No "
            "module named 'does_not_exist'; make it importable here: pip install its package, or "
            "add its folder to PYTHONPATH"
        )
        assert expected in result.stderr.splitlines()
