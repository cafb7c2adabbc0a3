"""Options -> config -> completed config, with kube-scheduler's precedence rule.

The rule (kube-scheduler's `Options.ApplyTo` in cmd/kube-scheduler/app/options/options.go):

* Without `--config`: start from the v1 defaults, apply the component-config flags that were
  given (`--kubeconfig`, `--kube-api-qps`, `--kube-api-burst`, `--kube-api-content-type`;
  upstream's `ApplyDeprecated`), then the leader-election flags that were given
  (`ApplyLeaderElectionTo`).
* With `--config`: start from the file (defaulted), apply ONLY the leader-election flags that
  were given (`--leader-elect*`, so they override the file), and ignore the component-config
  flags (upstream: "This parameter is ignored if a config file is specified in --config");
  kubesched says so in a notice for each one given.
* `--master` and the serving and logging flags are not in the file: they always apply.

kubesched's additions: `--pod-initial-backoff-seconds` and `--pod-max-backoff-seconds` are
component-config flags (ignored with `--config`). The aliases (`--leader-election-*`,
`--lock-object-*`) are exactly their canonical leader-election flags, so they override the
file; note that kube-scheduler <= 1.27 applied `--lock-object-*` in `ApplyDeprecated`
(ignored with `--config`). `--scheduler-name` (removed in 1.22, once a deprecated flag too)
renames the single profile with or without `--config`; a file with several profiles plus
`--scheduler-name` is an error. `--plugin-module` always applies.

Completing: an empty Lease name becomes the first profile's scheduler name; an empty Lease
namespace becomes `$POD_NAMESPACE`, else the service account's namespace file (in a pod),
else `kube-system`. Then the whole config is validated; all errors are raised together.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kubesched.apis.config import UPSTREAM_LEASE_NAMESPACE, KubeSchedulerConfiguration
from kubesched.config.errors import ConfigError, one_line
from kubesched.config.flags import (
    COMPOSITE_POD_GROUP,
    DRA_WORKLOAD_RESOURCE_CLAIMS,
    GATE_DEPENDENCIES,
    GENERIC_WORKLOAD,
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
    Options,
    feature_gates,
)
from kubesched.config.fromfile import decode_file
from kubesched.config.profiles import ArgsChecks
from kubesched.config.validation import validate
from kubesched.config.yamlfile import read_document

SERVICE_ACCOUNT_NAMESPACE_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")

# flag -> (section of the config or "" for the top level, field)
_COMPONENT_CONFIG_FLAGS = {
    "kubeconfig": ("client_connection", "kubeconfig"),
    "kube-api-qps": ("client_connection", "qps"),
    "kube-api-burst": ("client_connection", "burst"),
    "kube-api-content-type": ("client_connection", "content_type"),
    "pod-initial-backoff-seconds": ("", "pod_initial_backoff_seconds"),
    "pod-max-backoff-seconds": ("", "pod_max_backoff_seconds"),
}
_FILE_FIELD = {
    "kubeconfig": "clientConnection.kubeconfig",
    "kube-api-qps": "clientConnection.qps",
    "kube-api-burst": "clientConnection.burst",
    "kube-api-content-type": "clientConnection.contentType",
    "pod-initial-backoff-seconds": "podInitialBackoffSeconds",
    "pod-max-backoff-seconds": "podMaxBackoffSeconds",
}
_LEADER_ELECTION_FLAGS = {
    "leader-elect": ("leader_election", "leader_elect"),
    "leader-elect-lease-duration": ("leader_election", "lease_duration"),
    "leader-elect-renew-deadline": ("leader_election", "renew_deadline"),
    "leader-elect-retry-period": ("leader_election", "retry_period"),
    "leader-elect-resource-lock": ("leader_election", "resource_lock"),
    "leader-elect-resource-name": ("leader_election", "resource_name"),
    "leader-elect-resource-namespace": ("leader_election", "resource_namespace"),
}
_ALWAYS_FLAGS = {
    "master": ("client_connection", "master"),
    "secure-port": ("", "secure_port"),
    "bind-address": ("", "bind_address"),
    "cert-dir": ("", "cert_dir"),
    "tls-cert-file": ("", "tls_cert_file"),
    "tls-private-key-file": ("", "tls_private_key_file"),
    "plugin-module": ("", "plugin_modules"),
    "authorization-always-allow-paths": ("", "authorization_always_allow_paths"),
    "v": ("", "verbosity"),
    "logging-format": ("", "logging_format"),
    "vmodule": ("", "vmodule"),
    "authentication-kubeconfig": ("", "authentication_kubeconfig"),
    "authorization-kubeconfig": ("", "authorization_kubeconfig"),
    "authentication-token-webhook-cache-ttl": ("", "authentication_cache_ttl"),
    "authorization-webhook-cache-authorized-ttl": ("", "authorization_allowed_ttl"),
    "authorization-webhook-cache-unauthorized-ttl": ("", "authorization_denied_ttl"),
    "tls-min-version": ("", "tls_min_version"),
    "client-ca-file": ("", "client_ca_file"),
    "tls-cipher-suites": ("", "tls_cipher_suites"),
    "permit-address-sharing": ("", "permit_address_sharing"),
    "permit-port-sharing": ("", "permit_port_sharing"),
    "feature-gates": ("", "feature_gates"),
    "disabled-metrics": ("", "disabled_metrics"),
    "pod-max-in-unschedulable-pods-duration": ("", "pod_max_in_unschedulable_pods_seconds"),
    "shadow-scheduler-name": ("", "shadow_scheduler_name"),
}


@dataclasses.dataclass(frozen=True, slots=True)
class LoadResult:
    """What `load_config` hands the command: the completed config, the notices to print
    (one line each, on stderr), and the two flags that stop before running."""

    config: KubeSchedulerConfiguration
    notices: tuple[str, ...] = ()
    write_config_to: str = ""  # a path, "-" for stdout, or "" to run
    show_help: bool = False
    show_version: str = ""  # "true" or "raw" for --version


def complete(
    options: Options,
    *,
    environ: Mapping[str, str] = os.environ,
    namespace_file: Path = SERVICE_ACCOUNT_NAMESPACE_FILE,
    args_checks: ArgsChecks | None = None,
) -> LoadResult:
    """Build, complete and validate the config from parsed options; raise ConfigError with
    every problem (the flags' errors included) at once. `args_checks` validates the plugins'
    args with the file (`kubesched.config.args_check.IN_TREE_ARGS`); without it they are
    checked when the profiles are built."""
    if options.show_help:
        return LoadResult(config=KubeSchedulerConfiguration(), show_help=True)
    if options.show_version:
        return LoadResult(config=KubeSchedulerConfiguration(), show_version=options.show_version)
    errors = list(options.errors)
    notices = list(options.notices)
    config = _base_config(options, errors=errors, notices=notices)
    decoded = len(errors) == len(options.errors)
    config = _apply_flags(config, options, errors=errors, notices=notices)
    config = _complete_lease(config, environ=environ, namespace_file=namespace_file)
    errors.extend(_gate_dependency_errors(config.feature_gates))
    config = _apply_feature_gates(config)
    config = _apply_dra_workload_claims(config)
    notices.extend(_parallelism_notice(config))
    # As kube-scheduler: a file that does not decode (plugin args included) is refused for
    # that alone; one that does is validated as a whole, every problem at once.
    decoding = None
    if decoded and args_checks is not None:
        decoding = args_checks.decoding_error(config.profiles)
    if decoding is not None:
        errors.append(decoding)
    elif decoded:
        errors.extend(validate(config, args_checks=args_checks))
    if errors:
        raise ConfigError(errors, notices=notices)
    return LoadResult(
        config=config,
        notices=tuple(one_line(notice) for notice in notices),
        write_config_to=options.write_config_to,
    )


DEFAULT_PARALLELISM = 16


def _apply_feature_gates(config: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """`--feature-gates=GenericWorkload=true` turns native gang scheduling on in every profile,
    `TopologyAwareWorkloadScheduling=true` (with it) topology-aware placement."""
    gates = feature_gates(config.feature_gates)
    if not gates.get(GENERIC_WORKLOAD, False):
        return config
    topology_aware = gates.get(TOPOLOGY_AWARE_WORKLOAD_SCHEDULING, False)
    composite = topology_aware and gates.get(COMPOSITE_POD_GROUP, False)
    profiles = tuple(
        dataclasses.replace(
            profile,
            generic_workload=True,
            topology_aware_workload_scheduling=topology_aware,
            composite_pod_group=composite,
        )
        for profile in config.profiles
    )
    return dataclasses.replace(config, profiles=profiles)


def _apply_dra_workload_claims(config: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """`DRAWorkloadResourceClaims=true` (with `GenericWorkload`) lets every profile's
    DynamicResources share a PodGroup's claims among its members."""
    gates = feature_gates(config.feature_gates)
    if not (gates.get(GENERIC_WORKLOAD) and gates.get(DRA_WORKLOAD_RESOURCE_CLAIMS)):
        return config
    profiles = tuple(
        dataclasses.replace(profile, dra_workload_resource_claims=True)
        for profile in config.profiles
    )
    return dataclasses.replace(config, profiles=profiles)


def _gate_dependency_errors(items: tuple[str, ...]) -> list[str]:
    """kube-scheduler's refusal of a gate turned on without the gates it depends on."""
    gates = feature_gates(items)
    errors = []
    for gate, needs in GATE_DEPENDENCIES.items():
        off = [need for need in needs if gates.get(gate) and not gates.get(need)]
        if off:
            errors.append(
                f"--feature-gates: {gate} is enabled, but depends on features that are "
                f"disabled: [{' '.join(off)}]; add {','.join(f'{n}=true' for n in off)}"
            )
    return errors


def _base_config(
    options: Options, *, errors: list[str], notices: list[str]
) -> KubeSchedulerConfiguration:
    if not options.config_file:
        return KubeSchedulerConfiguration()
    try:
        document = read_document(options.config_file)
    except ConfigError as error:
        errors.extend(error.errors)
        return KubeSchedulerConfiguration()
    config, decoder = decode_file(document, source=options.config_file)
    errors.extend(decoder.problems())
    notices.extend(decoder.notices)
    return config


def _apply_flags(
    config: KubeSchedulerConfiguration, options: Options, *, errors: list[str], notices: list[str]
) -> KubeSchedulerConfiguration:
    if options.config_file:
        notices.extend(_ignored_notices(options))
    else:
        config = _apply(config, options, _COMPONENT_CONFIG_FLAGS)
    errors.extend(_empty_lease_flags(options))
    config = _apply(config, options, _LEADER_ELECTION_FLAGS)
    config = _apply(config, options, _ALWAYS_FLAGS)
    return _apply_scheduler_name(config, options, errors=errors)


_DEFAULT_WHEN_OMITTED = {
    "leader-elect-resource-name": "the first profile's schedulerName",
    "leader-elect-resource-namespace": "the pod's namespace, else kube-system",
}


def _empty_lease_flags(options: Options) -> list[str]:
    """`--leader-elect-resource-name=` (or an alias) given empty: refused, not defaulted."""
    return [
        f"--{flag}: must not be empty; omit the flag to use {default}"
        for flag, default in _DEFAULT_WHEN_OMITTED.items()
        if options.given(flag) and not str(options.values[flag]).strip()
    ]


def _ignored_notices(options: Options) -> list[str]:
    return [
        f"flag --{flag} is ignored because --config is given (as kube-scheduler does); "
        f"set {_FILE_FIELD[flag]} in {options.config_file} instead"
        for flag in _COMPONENT_CONFIG_FLAGS
        if options.given(flag)
    ]


def _apply(
    config: KubeSchedulerConfiguration,
    options: Options,
    table: Mapping[str, tuple[str, str]],
) -> KubeSchedulerConfiguration:
    for flag, (section, field) in table.items():
        if options.given(flag):
            config = _set(config, section=section, field=field, value=options.values[flag])
    return config


def _set(
    config: KubeSchedulerConfiguration, *, section: str, field: str, value: Any
) -> KubeSchedulerConfiguration:
    if field.endswith("_seconds") and section == "":
        value = float(value)
    if not section:
        return dataclasses.replace(config, **{field: value})
    part = dataclasses.replace(getattr(config, section), **{field: value})
    return dataclasses.replace(config, **{section: part})


def _apply_scheduler_name(
    config: KubeSchedulerConfiguration, options: Options, *, errors: list[str]
) -> KubeSchedulerConfiguration:
    if not options.given("scheduler-name"):
        return config
    if len(config.profiles) != 1:
        errors.append(
            f"--scheduler-name: {options.config_file} defines {len(config.profiles)} profiles; "
            "name each one with profiles[].schedulerName in the file and drop --scheduler-name"
        )
        return config
    profile = dataclasses.replace(
        config.profiles[0], scheduler_name=options.values["scheduler-name"]
    )
    return dataclasses.replace(config, profiles=(profile,))


def default_lease_namespace(
    *,
    environ: Mapping[str, str] = os.environ,
    namespace_file: Path = SERVICE_ACCOUNT_NAMESPACE_FILE,
) -> str:
    """`$POD_NAMESPACE`, else the namespace of the pod's service account, else kube-system."""
    namespace = environ.get("POD_NAMESPACE", "").strip()
    if namespace:
        return namespace
    try:
        namespace = namespace_file.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        namespace = ""
    return namespace or UPSTREAM_LEASE_NAMESPACE


def _complete_lease(
    config: KubeSchedulerConfiguration, *, environ: Mapping[str, str], namespace_file: Path
) -> KubeSchedulerConfiguration:
    election = config.leader_election
    if not election.resource_name and config.profiles:
        election = dataclasses.replace(election, resource_name=config.profiles[0].scheduler_name)
    if not election.resource_namespace:
        namespace = default_lease_namespace(environ=environ, namespace_file=namespace_file)
        election = dataclasses.replace(election, resource_namespace=namespace)
    return dataclasses.replace(config, leader_election=election)


def _parallelism_notice(config: KubeSchedulerConfiguration) -> list[str]:
    """kube-scheduler's `parallelism` sizes its goroutine pools; kubesched's cycle runs on one
    event loop (its speed comes from doing less work), so another value changes nothing."""
    if config.parallelism == DEFAULT_PARALLELISM or config.parallelism <= 0:
        return []  # the default, or a value validation refuses
    notice = (
        f"parallelism: {config.parallelism} accepted; kubesched schedules on one event loop, "
        "so it has no effect"
    )
    return [notice]
