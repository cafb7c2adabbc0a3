"""Whether and how the scheduler's API writes go through a writer process
(`kubesched.kube.writer_process`; docs/architecture.md "Processes").

Off by default: `KUBESCHED_WRITER_PROCESS=on` starts it. Measured on SchedulingBasic at
5000 nodes (docs/performance.md, "The writer process"), it takes the HTTP and TLS work of
the Binding and Event writes off the scheduling thread but costs more CPU in all (a second
interpreter encodes, sends and answers every write) and about 90 MiB more memory; on a
2-core machine that is a loss. Shadow mode writes nothing and never starts one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.kube.writer_process import WriterProcess

ENV_VAR = "KUBESCHED_WRITER_PROCESS"
CHILD_MODULE = "kubesched.server.writer_child"


def writer_process(
    config: KubeSchedulerConfiguration, environ: Mapping[str, str] | None = None
) -> WriterProcess | None:
    """The writer process the scheduling and event clients send through, or None."""
    env = os.environ if environ is None else environ
    if env.get(ENV_VAR, "").strip().lower() not in {"on", "1", "true", "yes"}:
        return None
    if config.shadow_scheduler_name:
        return None
    cc = config.client_connection
    settings = {
        "kubeconfig": cc.kubeconfig,
        "master": cc.master,
        "content_type": cc.content_type,
        "verbosity": config.verbosity,
        "logging_format": config.logging_format,
    }
    return WriterProcess([sys.executable, "-m", CHILD_MODULE], settings)
