"""`--shadow-scheduler-name`: the checks of shadow mode's one setting.

Why a flag and no field of the file: `--config` is a KubeSchedulerConfiguration that
kube-scheduler itself must still accept (kubesched's file is kube-scheduler's, unchanged), and
kube-scheduler's strict decoding refuses unknown fields; shadow mode is a way of running the
process, as `--leader-elect` is, not part of a profile. The completed config carries it as
`KubeSchedulerConfiguration.shadow_scheduler_name`.
"""

from __future__ import annotations

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config.dnsnames import is_dns_subdomain


def shadow_errors(config: KubeSchedulerConfiguration) -> list[str]:
    """One line per problem of shadow mode's setting (none when it is off)."""
    name = config.shadow_scheduler_name
    if not name:
        return []
    errors = []
    if not is_dns_subdomain(name):
        errors.append(
            f"--shadow-scheduler-name: {name!r} is not a scheduler name (a DNS subdomain such "
            "as default-scheduler); give the spec.schedulerName of the pods to shadow"
        )
    if len(config.profiles) != 1:
        errors.append(
            f"--shadow-scheduler-name: the configuration defines {len(config.profiles)} "
            "profiles; shadow mode compares one profile's decisions: keep one profile"
        )
    return errors
