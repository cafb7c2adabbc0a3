"""One run: the cluster of a `Setup` started, the specs run against it with the test binary,
the cluster stopped, and `summary.json` written beside ginkgo's own report and log.

    <out>/<run>/ginkgo.log     what the test binary printed
    <out>/<run>/report.json    ginkgo's JSON report
    <out>/<run>/summary.json   counts and every spec's state (report.write_summary)
    <out>/<run>/cluster/logs/  the component logs (kube-scheduler.log is the scheduler's,
                               kubesched's too)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched.localcluster import LocalCluster, gates
from kubesched_conformance import report, specs
from kubesched_conformance.cluster import Setup, start_cluster

SPEC_TIMEOUT = "1h"
"""Ginkgo's `--ginkgo.timeout` for one run (the defaults run takes minutes)."""


@dataclass(frozen=True)
class Selection:
    """Which specs to run; by default every spec of the run's gate that the cluster can run."""

    focus: str = ""
    """`--ginkgo.focus`, a regular expression over the specs' full texts."""
    skip: str = ""
    """`--ginkgo.skip`, added to the unrunnable specs."""
    include_unrunnable: bool = False
    """Run the specs of `specs.UNRUNNABLE` too (to see them fail)."""


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run."""

    name: str
    results: list[report.SpecResult]
    seconds: float
    summary: Path

    @property
    def failed(self) -> list[report.SpecResult]:
        """The specs that failed."""
        return [result for result in self.results if result.state == report.FAILED]


def ginkgo_argv(
    binary: Path, *, kubeconfig: Path, json_report: Path, setup: Setup, selection: Selection
) -> list[str]:
    """The test binary's command line for `setup` and `selection`."""
    skip = [selection.skip] if selection.skip else []
    if not selection.include_unrunnable and specs.skip_pattern():
        skip.append(specs.skip_pattern())
    argv = [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        "--provider=local",
        f"--ginkgo.label-filter={_label_filter(setup)}",
        f"--ginkgo.json-report={json_report}",
        f"--ginkgo.timeout={SPEC_TIMEOUT}",
        "--ginkgo.no-color",
    ]
    if selection.focus:
        argv.append(f"--ginkgo.focus={selection.focus}")
    if skip:
        argv.append("--ginkgo.skip=" + "|".join(skip))
    return argv


def _label_filter(setup: Setup) -> str:
    on = gates.enabled(setup.gate_map) if setup.gates else []
    return specs.label_filter(generic_workload=setup.generic_workload, gates=on)


def run_setup(
    setup: Setup,
    *,
    binary: Path,
    out: Path,
    selection: Selection = Selection(),
    say: Callable[[str], None] = print,
) -> RunResult:
    """Run the specs of `selection` on a fresh cluster of `setup`; results under
    `out/<setup.name>/`."""
    # Absolute: the test binary runs inside the cluster's folder, so a relative --out would
    # name a kubeconfig and a report it cannot find from there.
    folder = (out / setup.name).absolute()
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    say(f"== {setup.name}: starting the local cluster ({setup.scheduler} as default-scheduler)")
    start = time.monotonic()
    cluster = start_cluster(setup, workdir=folder / "cluster")
    try:
        json_report = folder / "report.json"
        argv = ginkgo_argv(
            binary,
            kubeconfig=cluster.kubeconfig_path,
            json_report=json_report,
            setup=setup,
            selection=selection,
        )
        say(f"== {setup.name}: running the specs (log: {folder / 'ginkgo.log'})")
        _run_logged(argv, log_path=folder / "ginkgo.log", cluster=cluster)
    finally:
        cluster.stop()
        shutil.rmtree(folder / "cluster" / "etcd-data", ignore_errors=True)
    seconds = time.monotonic() - start
    results = _results(json_report, folder / "ginkgo.log")
    summary = folder / "summary.json"
    report.write_summary(summary, name=setup.name, results=results, seconds=seconds)
    return RunResult(setup.name, results, seconds, summary)


def _run_logged(argv: Sequence[str], *, log_path: Path, cluster: LocalCluster) -> None:
    """Run the test binary, its output to the terminal (as it comes: ginkgo prints a dot
    per spec) and to `log_path`."""
    with log_path.open("wb") as log:
        log.write((" ".join(argv) + "\n").encode())
        log.flush()
        with subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cluster.workdir
        ) as proc:
            assert proc.stdout is not None
            while chunk := os.read(proc.stdout.fileno(), 65536):
                log.write(chunk)
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()


class ConformanceError(Exception):
    """A run that produced no results; the message says where to look."""


def _results(json_report: Path, log_path: Path) -> list[report.SpecResult]:
    if not json_report.is_file():
        raise ConformanceError(
            f"the test binary wrote no report ({json_report}); read its output in {log_path}"
        )
    try:
        return report.spec_results(json.loads(json_report.read_text()))
    except (ValueError, KeyError, TypeError) as error:
        raise ConformanceError(
            f"the test binary's report {json_report} cannot be read ({error}); its output: "
            f"{log_path}"
        ) from error
