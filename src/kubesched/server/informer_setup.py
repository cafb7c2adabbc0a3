"""Whether the pod and node informers run in an informer process
(`kubesched.informers.process`; docs/architecture.md "Processes").

Off by default: `KUBESCHED_INFORMER_PROCESS=on` starts it. The child lists and watches pods
and nodes, decodes the JSON and parses the slim objects; the scheduling thread only loads
the pickled objects and applies them to the store, the cache and the queue. The informers
of other resources (what plugins declare, storage) stay in process.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.informers.process import InformerProcess
from kubesched.server.env_switch import switched_on

ENV_VAR = "KUBESCHED_INFORMER_PROCESS"
CHILD_MODULE = "kubesched.server.informer_child"


def informer_process(
    config: KubeSchedulerConfiguration, environ: Mapping[str, str] | None = None
) -> InformerProcess | None:
    """The process the pod and node informers are fed by, or None (in process)."""
    if not switched_on(ENV_VAR, environ):
        return None
    cc = config.client_connection
    settings = {
        "kubeconfig": cc.kubeconfig,
        "master": cc.master,
        "qps": cc.qps,
        "burst": cc.burst,
        "verbosity": config.verbosity,
        "logging_format": config.logging_format,
    }
    return InformerProcess([sys.executable, "-m", CHILD_MODULE], settings)
