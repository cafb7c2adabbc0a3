"""Validation of a completed config: kube-scheduler's `ValidateKubeSchedulerConfiguration`
plus component-base's leader-election and client-connection rules, client-go's
`NewLeaderElector` checks (renewDeadline > JitterFactor 1.2 x retryPeriod) and kubesched's
own (names a pod or a Lease can actually carry, the serving and logging flags).

`validate` returns every problem, one line each, naming the field path (and its flag) and
the fix; where kube-scheduler has a text for it, the line starts with that text (`parallelism:
Invalid value: 0: should be an integer value greater than zero`) and our hint follows.
`default_scheduler_conflicts` returns the mission's collision rules as messages; the caller
decides whether they are fatal.
"""

from __future__ import annotations

import ipaddress
import json

from kubesched.apis.config import (
    CONTENT_TYPES,
    UPSTREAM_DEFAULT_SCHEDULER_NAME,
    KubeSchedulerConfiguration,
    LeaderElection,
)
from kubesched.apis.durations import format_duration
from kubesched.config.dnsnames import is_dns_label, is_dns_subdomain
from kubesched.config.errors import Problem
from kubesched.config.extenders import validate_extenders
from kubesched.config.profiles import ArgsChecks
from kubesched.config.profiles import percentage as _percentage
from kubesched.config.profiles import validate_profiles as _profiles
from kubesched.config.shadow import shadow_errors
from kubesched.config.tls import unknown_suites
from kubesched.config.vmodule import parse_vmodule

__all__ = ["default_scheduler_conflicts", "is_dns_label", "is_dns_subdomain", "validate"]

JITTER_FACTOR = 1.2  # client-go tools/leaderelection
_LE = "leaderElection"


def validate(
    config: KubeSchedulerConfiguration, *, args_checks: ArgsChecks | None = None
) -> list[str]:
    """Every problem of `config`, one line each (empty when valid), in the order of
    kube-scheduler's `ValidateKubeSchedulerConfiguration` (its aggregate lists them so),
    then kubesched's own checks of the command line."""
    return [
        *_client_connection(config),
        *_leader_election(config),
        *_parallelism(config),
        *_profiles(config.profiles, args_checks=args_checks),
        *_percentage("percentageOfNodesToScore", config.percentage_of_nodes_to_score),
        *_backoff(config),
        *validate_extenders(config.extenders),
        *_command_line(config),
    ]


def _quoted(value: str) -> str:
    """A string value as kube-scheduler's field errors quote it."""
    return json.dumps(value, ensure_ascii=False)


def _leader_election(config: KubeSchedulerConfiguration) -> list[str]:
    election = config.leader_election
    errors: list[str] = []
    if election.leader_elect:
        errors += _timings(election)
    if election.resource_lock != "leases":
        errors.append(
            Problem(
                f"{_LE}.resourceLock: Invalid value: {_quoted(election.resource_lock)}: "
                'resourceLock value must be "leases"',
                "kubesched only supports leases; use --leader-elect-resource-lock=leases",
            )
        )
    if not election.leader_elect:
        return errors
    # A Lease named after an invalid first profile is reported once, at the profile.
    named_after_profile = bool(config.profiles) and (
        election.resource_name == config.profiles[0].scheduler_name
    )
    return errors + _lease_names(election, check_name=not named_after_profile)


def _timings(election: LeaderElection) -> list[str]:
    """component-base's `ValidateLeaderElectionConfiguration`, then client-go's jitter rule."""
    lease, renew, retry = election.lease_duration, election.renew_deadline, election.retry_period
    errors: list[str] = [
        Problem(
            f'{_LE}.{field}: Invalid value: "{format_duration(value)}": must be greater than zero',
            f"--leader-elect-{flag}",
        )
        for field, flag, value in (
            ("leaseDuration", "lease-duration", lease),
            ("renewDeadline", "renew-deadline", renew),
            ("retryPeriod", "retry-period", retry),
        )
        if value <= 0
    ]
    if lease <= renew:
        errors.append(  # kube-scheduler shows renewDeadline's value here
            Problem(
                f'{_LE}.leaseDuration: Invalid value: "{format_duration(renew)}": must be '
                "greater than `RenewDeadline`",
                f"leaseDuration {format_duration(lease)}, renewDeadline "
                f"{format_duration(renew)}: --leader-elect-lease-duration, "
                "--leader-elect-renew-deadline; defaults 15s and 10s",
            )
        )
    if not errors and renew <= JITTER_FACTOR * retry:
        errors.append(
            f"{_LE}.renewDeadline (--leader-elect-renew-deadline): {format_duration(renew)} "
            f"must be greater than {JITTER_FACTOR} x retryPeriod "
            f"({format_duration(JITTER_FACTOR * retry)}); lower --leader-elect-retry-period"
        )
    return errors


def _lease_names(election: LeaderElection, *, check_name: bool) -> list[str]:
    errors: list[str] = []
    if check_name and not is_dns_subdomain(election.resource_name):
        errors.append(
            f"{_LE}.resourceName (--leader-elect-resource-name): {election.resource_name!r} is "
            "not a valid Lease name (lowercase letters, digits, '-' and '.', at most 253)"
        )
    if not is_dns_label(election.resource_namespace):
        errors.append(
            f"{_LE}.resourceNamespace (--leader-elect-resource-namespace): "
            f"{election.resource_namespace!r} is not a valid namespace name "
            "(lowercase letters, digits and '-', at most 63)"
        )
    return errors


def _client_connection(config: KubeSchedulerConfiguration) -> list[str]:
    connection = config.client_connection
    errors: list[str] = []
    if connection.burst < 0:
        errors.append(
            Problem(
                f"clientConnection.burst: Invalid value: {connection.burst}: must be non-negative",
                "--kube-api-burst, default 100",
            )
        )
    elif connection.burst == 0:
        errors.append("clientConnection.burst (--kube-api-burst): must be greater than zero, got 0")
    if connection.qps <= 0:
        errors.append(
            "clientConnection.qps (--kube-api-qps): must be greater than zero, "
            f"got {connection.qps:g}"
        )
    if connection.content_type not in CONTENT_TYPES:
        errors.append(
            f"clientConnection.contentType (--kube-api-content-type): "
            f"{connection.content_type!r} is not supported; use one of {', '.join(CONTENT_TYPES)}"
        )
    return errors


def _parallelism(config: KubeSchedulerConfiguration) -> list[str]:
    if config.parallelism > 0:
        return []
    return [
        Problem(
            f"parallelism: Invalid value: {config.parallelism}: should be an integer value "
            "greater than zero",
            "default 16",
        )
    ]


def _backoff(config: KubeSchedulerConfiguration) -> list[str]:
    errors: list[str] = []
    initial, maximum = config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds
    if initial <= 0:
        errors.append(
            Problem(
                f"podInitialBackoffSeconds: Invalid value: {initial:g}: must be greater than 0",
                "--pod-initial-backoff-seconds, default 1",
            )
        )
    if maximum < initial:
        errors.append(
            Problem(
                f"podMaxBackoffSeconds: Invalid value: {maximum:g}: must be greater than or equal "
                "to PodInitialBackoffSeconds",
                f"podInitialBackoffSeconds is {initial:g}; --pod-max-backoff-seconds, default 10",
            )
        )
    return errors


def _command_line(config: KubeSchedulerConfiguration) -> list[str]:
    errors: list[str] = []
    if not 0 <= config.secure_port <= 65535:
        errors.append(f"--secure-port: {config.secure_port} is not a port (0-65535)")
    try:
        ipaddress.ip_address(config.bind_address)
    except ValueError:
        errors.append(f"--bind-address: {config.bind_address!r} is not an IP address")
    if config.verbosity < 0:
        errors.append(f"-v: must be zero or more, got {config.verbosity}")
    if config.logging_format not in ("text", "json"):
        errors.append(f"--logging-format: {config.logging_format!r}; use text or json")
    errors.extend(
        f"--tls-cipher-suites: {name!r} is not a TLS cipher suite kubesched knows; use IANA "
        "names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
        for name in unknown_suites(config.tls_cipher_suites)
    )
    try:
        parse_vmodule(config.vmodule)
    except ValueError as error:
        errors.append(str(error))
    errors.extend(shadow_errors(config))
    auth = {config.authentication_kubeconfig, config.authorization_kubeconfig} - {""}
    if len(auth) > 1:
        errors.append(
            "--authentication-kubeconfig and --authorization-kubeconfig differ: kubesched "
            "reviews tokens and access through one client; give both the same file"
        )
    return errors


def default_scheduler_conflicts(config: KubeSchedulerConfiguration) -> tuple[str, ...]:
    """The ways `config` would collide with the default kube-scheduler, as messages.

    Using the Lease `kube-system/kube-scheduler` without a `default-scheduler` profile would
    block forever behind kube-scheduler ("attempting to acquire leader lease
    kube-system/kube-scheduler..."). Serving `default-scheduler` means replacing
    kube-scheduler: safe only once it is stopped (or when sharing its Lease, so one runs).
    """
    messages: list[str] = []
    election = config.leader_election
    if election.leader_elect and config.uses_default_scheduler_lease:
        if not config.replaces_default_scheduler:
            messages.append(
                f"{_LE}: the Lease {config.lease} belongs to the default kube-scheduler; kubesched "
                "would wait behind it forever. Give kubesched its own Lease, e.g. "
                f"--leader-elect-resource-name={config.profiles[0].scheduler_name}"
            )
    elif config.replaces_default_scheduler:
        messages.append(
            f"profiles: {UPSTREAM_DEFAULT_SCHEDULER_NAME!r} makes kubesched schedule the pods of "
            "the default kube-scheduler; stop kube-scheduler first, or use its Lease "
            "(kube-system/kube-scheduler) so that only one of them runs"
        )
    return tuple(messages)
