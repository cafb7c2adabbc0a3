"""The command-line flags: kube-scheduler's names and defaults (the less common ones in
`flagtable_upstream`), plus the spellings found in the two guides, accepted as aliases with a
one-line notice.

`section` groups the flags in `--help` (kube-scheduler's named flag sets) and decides how a
flag meets a config file (see `kubesched.config.complete`).
"""

from __future__ import annotations

from kubesched.config.flagtable_types import (
    DEPRECATED,
    KUBESCHED,
    LEADER,
    LOGS,
    MISC,
    SERVING,
    Flag,
    Kind,
)
from kubesched.config.flagtable_upstream import NOTICES, UPSTREAM_FLAGS

CORE_FLAGS = (
    Flag("config", Kind.STRING, MISC, "The path to the configuration file."),
    Flag(
        "write-config-to",
        Kind.STRING,
        MISC,
        "If set, write the configuration values to this file ('-' for stdout) and exit.",
    ),
    Flag(
        "master",
        Kind.STRING,
        MISC,
        "The address of the Kubernetes API server (overrides any value in kubeconfig).",
    ),
    Flag(
        "secure-port",
        Kind.INT,
        SERVING,
        "The port on which to serve HTTPS /healthz, /livez, /readyz and /metrics. (default 10259)",
    ),
    Flag(
        "bind-address",
        Kind.STRING,
        SERVING,
        "The IP address on which to listen for the --secure-port port. (default 0.0.0.0)",
    ),
    Flag(
        "cert-dir",
        Kind.STRING,
        SERVING,
        "The directory for the self-signed serving certificate; ignored with --tls-cert-file.",
    ),
    Flag(
        "tls-cert-file",
        Kind.STRING,
        SERVING,
        "File with the x509 certificate for HTTPS (CA cert, if any, concatenated after it).",
    ),
    Flag(
        "tls-private-key-file",
        Kind.STRING,
        SERVING,
        "File with the x509 private key matching --tls-cert-file.",
    ),
    Flag(
        "authorization-always-allow-paths",
        Kind.LIST,
        SERVING,
        "Comma-separated paths served without authorization (a trailing * is a prefix). "
        "(default /healthz,/readyz,/livez)",
    ),
    Flag(
        "leader-elect",
        Kind.BOOL,
        LEADER,
        "Gain leadership of the Lease before scheduling; for replicated schedulers. (default true)",
    ),
    Flag(
        "leader-elect-lease-duration",
        Kind.DURATION,
        LEADER,
        "How long non-leaders wait after a renewal before trying to take over. (default 15s)",
        ("leader-election-lease-duration",),
    ),
    Flag(
        "leader-elect-renew-deadline",
        Kind.DURATION,
        LEADER,
        "How long the leader keeps retrying a renewal before it stops leading. (default 10s)",
        ("leader-election-renew-deadline",),
    ),
    Flag(
        "leader-elect-retry-period",
        Kind.DURATION,
        LEADER,
        "The wait between tries to acquire or renew the Lease. (default 2s)",
        ("leader-election-retry-period",),
    ),
    Flag(
        "leader-elect-resource-lock",
        Kind.STRING,
        LEADER,
        "The type of lock object; kubesched supports only 'leases'. (default leases)",
    ),
    Flag(
        "leader-elect-resource-name",
        Kind.STRING,
        LEADER,
        "The name of the Lease. (default: the first profile's scheduler name)",
        ("leader-election-resource-name", "lock-object-name"),
    ),
    Flag(
        "leader-elect-resource-namespace",
        Kind.STRING,
        LEADER,
        "The namespace of the Lease. (default: the pod's namespace in a cluster, else kube-system)",
        ("leader-election-resource-namespace", "lock-object-namespace"),
    ),
    Flag(
        "kubeconfig",
        Kind.STRING,
        DEPRECATED,
        "Path to a kubeconfig file. Ignored if --config is given.",
    ),
    Flag(
        "kube-api-qps",
        Kind.FLOAT,
        DEPRECATED,
        "QPS to use while talking with the API server. Ignored if --config is given. (default 50)",
    ),
    Flag(
        "kube-api-burst",
        Kind.INT,
        DEPRECATED,
        "Burst of requests to the API server. Ignored if --config is given. (default 100)",
    ),
    Flag(
        "kube-api-content-type",
        Kind.STRING,
        DEPRECATED,
        "Content type of requests sent to the API server (protobuf: the Binding and Event "
        "bodies, the rest JSON). Ignored if --config is given. "
        "(default application/vnd.kubernetes.protobuf)",
    ),
    Flag(
        "pod-initial-backoff-seconds",
        Kind.INT,
        DEPRECATED,
        "The initial backoff for unschedulable pods. Ignored if --config is given. (default 1)",
    ),
    Flag(
        "pod-max-backoff-seconds",
        Kind.INT,
        DEPRECATED,
        "The maximum backoff for unschedulable pods. Ignored if --config is given. (default 10)",
    ),
    Flag(
        "scheduler-name",
        Kind.STRING,
        KUBESCHED,
        "The single profile's name: kubesched schedules pods with this spec.schedulerName.",
    ),
    Flag(
        "plugin-module",
        Kind.LIST,
        KUBESCHED,
        "A Python module that registers plugins; repeat the flag for several.",
    ),
    Flag(
        "shadow-scheduler-name",
        Kind.STRING,
        KUBESCHED,
        "Shadow mode: decide where the single profile would put each pod of this other "
        "scheduler (e.g. default-scheduler), compare with where it put it, and write nothing "
        "to the cluster (no leader election). See docs/replay.md, Shadow a live scheduler.",
    ),
    Flag("v", Kind.INT, LOGS, "Number for the log level verbosity. (default 0)", short="v"),
    Flag("logging-format", Kind.STRING, LOGS, "Sets the log format: text or json. (default text)"),
    Flag("help", Kind.BOOL, MISC, "Show this help and exit.", short="h"),
)
FLAGS = (*CORE_FLAGS, *UPSTREAM_FLAGS)
BY_NAME = {flag.name: flag for flag in FLAGS}

# Why an alias exists; the notice reads "flag --ALIAS is WHY; using it as --CANONICAL".
ALIAS_ORIGINS = {
    "leader-election-lease-duration": "a spelling from a guide, not a kube-scheduler flag",
    "leader-election-renew-deadline": "a spelling from a guide, not a kube-scheduler flag",
    "leader-election-retry-period": "a spelling from a guide, not a kube-scheduler flag",
    "leader-election-resource-name": "a spelling from a guide, not a kube-scheduler flag",
    "leader-election-resource-namespace": "a spelling from a guide, not a kube-scheduler flag",
    "lock-object-name": "deprecated (removed from kube-scheduler in 1.28)",
    "lock-object-namespace": "deprecated (removed from kube-scheduler in 1.28)",
}
CANONICAL = {alias: flag.name for flag in FLAGS for alias in flag.aliases}
SCHEDULER_NAME_NOTICE = (
    "flag --scheduler-name was removed from kube-scheduler in 1.22; kubesched uses it as the "
    "scheduler name of the single profile (profiles[].schedulerName in --config)"
)

# Flags kube-scheduler no longer has, with the fix.
REMOVED = {
    "address": "was removed from kube-scheduler in 1.24; use --bind-address",
    "port": "was removed from kube-scheduler in 1.24 (insecure serving); use --secure-port",
    "policy-config-file": "was removed from kube-scheduler in 1.23; use --config with profiles",
    "policy-configmap": "was removed from kube-scheduler in 1.23; use --config with profiles",
    "algorithm-provider": "was removed from kube-scheduler in 1.23; use --config with profiles",
}

__all__ = [
    "ALIAS_ORIGINS",
    "BY_NAME",
    "CANONICAL",
    "FLAGS",
    "NOTICES",
    "REMOVED",
    "SCHEDULER_NAME_NOTICE",
    "Flag",
    "Kind",
]
