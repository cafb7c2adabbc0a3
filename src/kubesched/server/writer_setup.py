"""Whether and how the scheduler's API writes go through a writer process
(`kubesched.kube.writer_process`; docs/architecture.md "Processes").

Off by default: `KUBESCHED_WRITER_PROCESS=on` starts it. Measured on SchedulingBasic at
5000 nodes (docs/performance.md, "The writer process"), it takes the HTTP and TLS work of
the Binding and Event writes off the scheduling thread but costs more CPU in all (a second
interpreter encodes, sends and answers every write) and about 90 MiB more memory; on a
2-core machine that is a loss. Shadow mode writes nothing and never starts one.

With it, the events are recorded in the writer process too
(`kubesched.scheduler.event_frames`): its reports (the event client's `rest_client_*`
samples, the events it dropped) are counted in the scheduler's metrics by `reports_to`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.kube.writer_process import Report, WriterProcess
from kubesched.scheduler.event_frames import count_reported_drops
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.env_switch import switched_on

ENV_VAR = "KUBESCHED_WRITER_PROCESS"
CHILD_MODULE = "kubesched.server.writer_child"


def writer_process(
    config: KubeSchedulerConfiguration,
    environ: Mapping[str, str] | None = None,
    *,
    on_report: Report | None = None,
) -> WriterProcess | None:
    """The writer process the scheduling client sends through and the events are recorded
    in, or None; `on_report` takes its reports (`reports_to`)."""
    if not switched_on(ENV_VAR, environ):
        return None
    if config.shadow_scheduler_name:
        return None
    cc = config.client_connection
    settings = {
        "kubeconfig": cc.kubeconfig,
        "master": cc.master,
        "content_type": cc.content_type,
        "event_qps": cc.qps,
        "event_burst": cc.burst,
        "verbosity": config.verbosity,
        "logging_format": config.logging_format,
    }
    return WriterProcess([sys.executable, "-m", CHILD_MODULE], settings, on_report=on_report)


def reports_to(metrics: SchedulerMetrics) -> Report:
    """Counts a writer process's reports in `metrics`: its event client's samples as the
    scheduler's own clients' (`rest_client_*`), its dropped events in
    `kubesched_events_dropped_total`."""

    def report(header: dict[str, Any]) -> None:
        for method, host, code, seconds, retry in header.get("o", ()):
            metrics.observe_request(str(method), str(host), str(code), float(seconds))
            if retry:
                metrics.observe_retry(str(method), str(host), str(code))
        count_reported_drops(header, metrics.count_dropped_event)

    return report
