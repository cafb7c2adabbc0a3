"""`KUBESCHED_INFORMER_PROCESS`: off unless set; on, the child is this interpreter running
`kubesched.server.informer_child` with the connection settings of the config."""

from __future__ import annotations

import sys

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.server.informer_setup import CHILD_MODULE, informer_process


def test_off_unless_asked() -> None:
    config = KubeSchedulerConfiguration()
    assert informer_process(config, environ={}) is None
    assert informer_process(config, environ={"KUBESCHED_INFORMER_PROCESS": "off"}) is None


def test_on_runs_the_child_module_with_the_configs_connection() -> None:
    config = KubeSchedulerConfiguration()
    process = informer_process(config, environ={"KUBESCHED_INFORMER_PROCESS": "on"})
    assert process is not None
    assert process._argv == (sys.executable, "-m", CHILD_MODULE)
    cc = config.client_connection
    assert process._settings["kubeconfig"] == cc.kubeconfig
    assert (process._settings["qps"], process._settings["burst"]) == (cc.qps, cc.burst)
    assert process.pid is None  # nothing starts before an informer runs
