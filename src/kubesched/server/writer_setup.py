"""Whether and how the scheduler's API writes go through a writer process
(`kubesched.kube.writer_process`; docs/architecture.md "Processes").

On by default; `KUBESCHED_WRITER_PROCESS=off` keeps every write in the scheduling process
(to compare the two, or where a second process is not wanted). Shadow mode writes nothing
and never starts one.
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
    if env.get(ENV_VAR, "").strip().lower() in {"off", "0", "false", "no"}:
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
