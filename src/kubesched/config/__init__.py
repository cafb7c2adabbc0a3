"""Configuration: kube-scheduler's flags (with the spellings of "Configure Multiple
Schedulers" and of the guide on leader-election conflicts between a custom scheduler and
kube-scheduler as aliases) and the `KubeSchedulerConfiguration` v1 file -> one validated,
frozen `KubeSchedulerConfiguration`.

    result = load_config(argv)            # raises ConfigError with every problem at once
    for notice in result.notices: print(notice, file=sys.stderr)
    if result.show_help: print(help_text())
    elif result.write_config_to: write_config(result.config, path=result.write_config_to)

The precedence of flags over the file is kube-scheduler's; `kubesched.config.complete`
states it. `default_scheduler_conflicts(config)` tells whether the config would collide with
the default kube-scheduler (its Lease, its scheduler name).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.complete import (
    SERVICE_ACCOUNT_NAMESPACE_FILE,
    LoadResult,
    complete,
    default_lease_namespace,
)
from kubesched.config.dump import configz, dump_config, write_config
from kubesched.config.errors import ConfigError
from kubesched.config.flags import Options, help_text, parse_options
from kubesched.config.profiles import ArgsChecks
from kubesched.config.validation import default_scheduler_conflicts, validate

__all__ = [
    "SERVICE_ACCOUNT_NAMESPACE_FILE",
    "ArgsChecks",
    "ConfigError",
    "KubeSchedulerConfiguration",
    "LoadResult",
    "Options",
    "complete",
    "configz",
    "default_lease_namespace",
    "default_scheduler_conflicts",
    "dump_config",
    "help_text",
    "load_config",
    "parse_options",
    "validate",
    "write_config",
]


def load_config(
    argv: Sequence[str],
    *,
    environ: Mapping[str, str] = os.environ,
    namespace_file: Path = SERVICE_ACCOUNT_NAMESPACE_FILE,
    args_checks: ArgsChecks | None = None,
) -> LoadResult:
    """Parse the flags, read `--config`, complete and validate: the command line to a
    completed config. Raises ConfigError holding every problem, one line each.
    `args_checks`: see `complete`."""
    options = parse_options(argv)
    return complete(
        options, environ=environ, namespace_file=namespace_file, args_checks=args_checks
    )
