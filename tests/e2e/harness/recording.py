"""Recording a trace while kube-scheduler places a workload, and replaying it in process.

    stderr = record_around(["kubesched", "record", "--out", str(path)], cwd, env, work)
    report = replay_default(path)          # kubesched's default profile, ties following
    assert_faithful(report)                 # >= 99 % same node or tied, others explained
    assert not unexplained_evictions(report, preempted(read_trace(path).records()))

`record_around` runs the recorder as a user would (a process, ended with Ctrl-C) around
`work()`; the replay runs in this process (`kubesched.replay.replay_trace`), never touching
the cluster.
"""

from __future__ import annotations

import math
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.replay import read_trace, replay_trace, trace
from tests.e2e.harness.waiting import wait_for

CLI_TIMEOUT_SECONDS = 60.0
AGREEING = ("same", "tie")


def cli_env(kubeconfig_path: Path) -> dict[str, str]:
    """The environment of a `kubesched` command run against `kubeconfig_path`."""
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "KUBECONFIG": str(kubeconfig_path),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
    }


class Lines:
    """The lines a process writes to a stream, read on a thread."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line.rstrip("\n"))

    def text(self) -> str:
        self._thread.join(timeout=5)
        return "\n".join(self.lines)


def record_around(
    command: str | Sequence[str], cwd: Path, env: dict[str, str], work: Callable[[], None]
) -> str:
    """Run a `kubesched record` command around `work()` and end it with Ctrl-C; its stderr."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    recorder = subprocess.Popen(argv, cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
    err = Lines(recorder.stderr)
    try:
        wait_for(
            lambda: any(line.startswith("recording ") for line in err.lines),
            timeout=CLI_TIMEOUT_SECONDS,
            message=f"`{' '.join(argv)}` has read the cluster",
        )
        work()
        time.sleep(1.0)  # the last binding's watch event reaches the recorder
        recorder.send_signal(signal.SIGINT)
        assert recorder.wait(timeout=CLI_TIMEOUT_SECONDS) == 0, err.text()
    finally:
        if recorder.poll() is None:
            recorder.kill()
            recorder.wait()
    return err.text()


def replay_default(path: Path, *flags: str, seed: int = 1) -> dict[str, Any]:
    """The JSON report of the trace's replay with kubesched's default profile (`flags` as
    `kubesched run` takes them, e.g. `--feature-gates=...`)."""
    [report] = replay_trace(
        read_trace(path), [("default", load_config(list(flags)).config)], seed=seed
    )
    result: dict[str, Any] = report.as_json()
    return result


def preempted(records: Iterable[Mapping[str, Any]]) -> set[str]:
    """The pods (`namespace/name`) the trace's scheduler evicted: those a `Preempted` event
    names, each once. kube-scheduler v1.37.2 can record two for one victim: once the last
    victim's DELETE has been sent, DefaultPreemption's PreEnqueue lets the preemptor in again
    (it reads the informer's store); when a cycle runs before the scheduler's cache has seen
    the victim's `deletionTimestamp`, the victim is not yet terminating there, so the pod
    preempts again, picks it again and deletes it once more, with a second event."""
    return {str(r["pod"]) for r in records if r["op"] == trace.EVENT and r["reason"] == "Preempted"}


def evicted(report: dict[str, Any]) -> set[str]:
    """The pods (`namespace/name`) the replay's preemptions evicted."""
    return {d["pod"] for d in report["decisions"] if d["evicted_at"] is not None}


def unexplained_evictions(report: dict[str, Any], victims: set[str]) -> list[str]:
    """One line per pod only one side evicted although both placed it on the same node.
    A pod that one side put on a node tied with the other's (`assert_faithful` bounds those)
    can stand on the preempted node on one side only, and is then evicted on that side only."""
    decisions = {d["pod"]: d for d in report["decisions"]}
    replayed = evicted(report)
    lines = []
    for pod in sorted(replayed ^ victims):
        d = decisions.get(pod)
        if d is None or d["node"] == d["recorded_node"]:
            side = "the replay" if pod in replayed else "kube-scheduler"
            lines.append(f"{pod}: evicted by {side} only, placed alike ({d and d['node']})")
    return lines


def disagreements(report: dict[str, Any]) -> list[str]:
    """One line per pod placed by either side whose nodes neither match nor tie."""
    lines = []
    for d in report["decisions"]:
        node, recorded, ties = d["node"], d["recorded_node"], d["tied_nodes"]
        if (node or recorded) and not (node == recorded or (node and recorded in ties)):
            why = d["last_failure"] or f"tied: {ties}"
            lines.append(
                f"{d['pod']}: replay {node or '-'}, kube-scheduler {recorded or '-'} ({why})"
            )
    return lines


def assert_faithful(report: dict[str, Any], *, at_least: float = 0.99, pods: int = 0) -> None:
    """At least `at_least` of the pods placed by either side went to kube-scheduler's node or
    one tied with it; at least `pods` were compared. Lists every other pod on failure."""
    compared = [d for d in report["decisions"] if d["node"] or d["recorded_node"]]
    differing = disagreements(report)
    agreeing = len(compared) - len(differing)
    assert len(compared) >= pods, f"{len(compared)} pods compared, {pods} expected"
    assert agreeing >= math.ceil(at_least * len(compared)), "\n".join(
        [f"{agreeing} of {len(compared)} agree", *differing]
    )
