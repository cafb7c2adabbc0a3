"""`kubesched run` (the default command): load the config, then run the scheduler."""

from __future__ import annotations

import asyncio
import json
import signal
from importlib.metadata import version as package_version

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.cli.kubeconfig_errors import connection_error_text
from kubesched.cli.startup import StartupOutput
from kubesched.config import ConfigError, help_text, load_config, write_config
from kubesched.config.args_check import IN_TREE_ARGS
from kubesched.config.plugin_check import check_plugins
from kubesched.errors import FatalError
from kubesched.server import eventloop
from kubesched.server.app import run_scheduler
from kubesched.server.gc_tuning import tune_collector
from kubesched.server.logs import setup_logging

KUBE_SCHEDULER_VERSION = "v1.37.2"
"""The kube-scheduler release whose behaviour kubesched reproduces."""

FATAL_ERRORS = (FatalError,)
"""Every fatal error a user may meet derives from it (`kubesched.apis.errors`)."""


async def _serve(config: KubeSchedulerConfiguration) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return await run_scheduler(config, stop)


def version_text(*, raw: bool = False) -> str:
    """`--version`: kubesched's version and the kube-scheduler release it follows."""
    mine = package_version("kubesched")
    if raw:
        info = {"gitVersion": f"v{mine}", "kubeSchedulerVersion": KUBE_SCHEDULER_VERSION}
        return json.dumps(info, indent=2)
    return f"kubesched v{mine} (kube-scheduler {KUBE_SCHEDULER_VERSION} semantics)"


def _report(out: StartupOutput, exc: ConfigError) -> int:
    """Say a ConfigError's notices, then its problems in one line as kube-scheduler
    aggregates them; the exit code 1."""
    out.notices(exc.notices)
    return out.error(exc.line)


def _write_config(out: StartupOutput, config: KubeSchedulerConfiguration, path: str) -> int:
    try:
        write_config(config, path=path)
    except ConfigError as exc:
        return _report(out, exc)
    return 0


def main(argv: list[str]) -> int:
    out = StartupOutput(argv)
    try:
        result = load_config(argv, args_checks=IN_TREE_ARGS)
    except ConfigError as exc:
        return _report(out, exc)
    out.notices(result.notices)
    if result.show_help or result.show_version:
        print(help_text() if result.show_help else version_text(raw=result.show_version == "raw"))
        return 0
    try:
        checked = check_plugins(result.config)  # before writing or serving, as kube-scheduler
    except ConfigError as exc:
        return _report(out, exc)
    out.notices(checked.notices)
    config = checked.config
    if result.write_config_to:
        return _write_config(out, config, result.write_config_to)
    setup_logging(
        verbosity=config.verbosity,
        logging_format=config.logging_format,
        vmodule=config.vmodule,
    )
    tune_collector()
    try:
        return eventloop.run(_serve(config))
    except FATAL_ERRORS as exc:
        return out.error(connection_error_text(exc))
