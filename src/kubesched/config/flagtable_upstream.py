"""The rest of kube-scheduler v1.37's flags, so that its command lines (kubeadm's static pod
among them) run unchanged: authentication and authorization, TLS details, feature gates,
metrics, logging, and the deprecated queue flag.

Each flag is accepted. `NOTICES` holds, for the flags that configure something kubesched does
not have, the one line printed when such a flag is given; the others take effect (see
`kubesched.config.complete`).
"""

from __future__ import annotations

from kubesched.config.flagtable_types import LOGS, MISC, SERVING, Flag, Kind

AUTHN = "authentication"
AUTHZ = "authorization"
FEATURE = "feature gate"
METRICS = "metrics"


def _flag(name: str, kind: Kind, section: str, help_text: str) -> Flag:
    return Flag(name, kind, section, help_text)


UPSTREAM_FLAGS = (
    Flag(
        "version",
        Kind.STRING,
        MISC,
        "Print version information and quit (--version or --version=raw).",
        no_value="true",
    ),
    _flag(
        "authentication-kubeconfig",
        Kind.STRING,
        AUTHN,
        "kubeconfig of the API server that reviews tokens (TokenReview); default --kubeconfig.",
    ),
    _flag(
        "authentication-token-webhook-cache-ttl",
        Kind.DURATION,
        AUTHN,
        "How long to cache token reviews. (default 10s)",
    ),
    _flag(
        "authentication-skip-lookup",
        Kind.BOOL,
        AUTHN,
        "Skip reading the client CA from the extension-apiserver-authentication ConfigMap.",
    ),
    _flag(
        "authentication-tolerate-lookup-failure",
        Kind.BOOL,
        AUTHN,
        "Start even if the client CA cannot be read from the cluster. (default true)",
    ),
    _flag(
        "client-ca-file",
        Kind.STRING,
        AUTHN,
        "CA bundle that signs the client certificates allowed to call the secure port.",
    ),
    _flag("requestheader-client-ca-file", Kind.STRING, AUTHN, "CA of front-proxy clients."),
    _flag("requestheader-allowed-names", Kind.LIST, AUTHN, "Allowed front-proxy client names."),
    _flag("requestheader-username-headers", Kind.LIST, AUTHN, "Headers holding the user name."),
    _flag("requestheader-group-headers", Kind.LIST, AUTHN, "Headers holding the groups."),
    _flag("requestheader-uid-headers", Kind.LIST, AUTHN, "Headers holding the user's UID."),
    _flag("requestheader-extra-headers-prefix", Kind.LIST, AUTHN, "Prefixes of extra headers."),
    _flag(
        "authorization-kubeconfig",
        Kind.STRING,
        AUTHZ,
        "kubeconfig of the API server that authorizes calls (SubjectAccessReview); "
        "default --kubeconfig.",
    ),
    _flag(
        "authorization-webhook-cache-authorized-ttl",
        Kind.DURATION,
        AUTHZ,
        "How long to cache 'authorized' answers. (default 10s)",
    ),
    _flag(
        "authorization-webhook-cache-unauthorized-ttl",
        Kind.DURATION,
        AUTHZ,
        "How long to cache 'unauthorized' answers. (default 10s)",
    ),
    _flag(
        "tls-min-version",
        Kind.STRING,
        SERVING,
        "Minimum TLS version: VersionTLS12 or VersionTLS13. (default VersionTLS12)",
    ),
    _flag(
        "tls-cipher-suites",
        Kind.LIST,
        SERVING,
        "Comma-separated TLS 1.2 cipher suites (IANA names); TLS 1.3 suites are fixed.",
    ),
    _flag("tls-curve-preferences", Kind.LIST, SERVING, "Elliptic curves for ECDHE."),
    _flag("tls-sni-cert-key", Kind.LIST, SERVING, "A certificate and key per SNI domain."),
    _flag("disable-http2-serving", Kind.BOOL, SERVING, "Serve HTTP/1.1 only."),
    _flag("http2-max-streams-per-connection", Kind.INT, SERVING, "HTTP/2 stream limit."),
    _flag(
        "permit-address-sharing",
        Kind.BOOL,
        SERVING,
        "Bind with SO_REUSEADDR, so that a restart finds its port free at once.",
    ),
    _flag(
        "permit-port-sharing",
        Kind.BOOL,
        SERVING,
        "Bind with SO_REUSEPORT, so that several processes may share the port.",
    ),
    _flag(
        "feature-gates",
        Kind.LIST,
        FEATURE,
        "Comma-separated Name=true|false pairs of feature gates.",
    ),
    _flag("emulated-version", Kind.LIST, FEATURE, "The Kubernetes version to emulate."),
    _flag(
        "min-compatibility-version",
        Kind.LIST,
        FEATURE,
        "The oldest version to stay compatible with.",
    ),
    _flag(
        "profiling",
        Kind.BOOL,
        MISC,
        "Serve /debug/pprof (kube-scheduler's Go profiler). (default true)",
    ),
    _flag("contention-profiling", Kind.BOOL, MISC, "Enable block profiling with --profiling."),
    _flag(
        "disabled-metrics",
        Kind.LIST,
        METRICS,
        "Metric families not to export (comma-separated full names).",
    ),
    _flag("allow-metric-labels", Kind.LIST, METRICS, "Allowed values per metric label."),
    _flag("allow-metric-labels-manifest", Kind.STRING, METRICS, "File of allowed label values."),
    _flag(
        "show-hidden-metrics-for-version",
        Kind.STRING,
        METRICS,
        "The previous version for which to show hidden metrics.",
    ),
    _flag("vmodule", Kind.LIST, LOGS, "Per-module verbosity: pattern=N,... (text format)."),
    _flag("log-flush-frequency", Kind.DURATION, LOGS, "Maximum seconds between log flushes."),
    _flag("log-json-info-buffer-size", Kind.STRING, LOGS, "JSON info stream buffer size."),
    _flag("log-json-split-stream", Kind.BOOL, LOGS, "JSON: info to stdout, errors to stderr."),
    _flag("log-text-info-buffer-size", Kind.STRING, LOGS, "Text info stream buffer size."),
    _flag("log-text-split-stream", Kind.BOOL, LOGS, "Text: info to stdout, errors to stderr."),
    _flag(
        "pod-max-in-unschedulable-pods-duration",
        Kind.DURATION,
        MISC,
        "How long a pod may stay in the unschedulable pool before it is retried. (default 5m)",
    ),
)

_NO_FRONT_PROXY = (
    "front-proxy (request header) authentication is not implemented; callers authenticate "
    "with a bearer token (TokenReview) or a client certificate of --client-ca-file"
)
_NO_HTTP2 = "kubesched serves HTTP/1.1 only"
_NO_PPROF = "kubesched has no Go profiler (/debug/pprof is not served)"
_UNBUFFERED = "kubesched writes its log unbuffered"
_NO_METRIC_FILTERS = "kubesched exports every label value of its metrics"
_NO_EMULATION = "kubesched behaves as kube-scheduler v1.37 only"

NOTICES = {
    "authentication-skip-lookup": "kubesched does not read the authentication ConfigMap",
    "authentication-tolerate-lookup-failure": "kubesched does not read the authentication "
    "ConfigMap",
    "requestheader-client-ca-file": _NO_FRONT_PROXY,
    "requestheader-allowed-names": _NO_FRONT_PROXY,
    "requestheader-username-headers": _NO_FRONT_PROXY,
    "requestheader-group-headers": _NO_FRONT_PROXY,
    "requestheader-uid-headers": _NO_FRONT_PROXY,
    "requestheader-extra-headers-prefix": _NO_FRONT_PROXY,
    "tls-curve-preferences": "kubesched uses OpenSSL's default curves",
    "tls-sni-cert-key": "kubesched serves one certificate",
    "disable-http2-serving": _NO_HTTP2,
    "http2-max-streams-per-connection": _NO_HTTP2,
    "emulated-version": _NO_EMULATION,
    "min-compatibility-version": _NO_EMULATION,
    "contention-profiling": _NO_PPROF,
    "allow-metric-labels": _NO_METRIC_FILTERS,
    "allow-metric-labels-manifest": _NO_METRIC_FILTERS,
    "show-hidden-metrics-for-version": "kubesched exports none of the metrics kube-scheduler hides",
    "log-flush-frequency": _UNBUFFERED,
    "log-json-info-buffer-size": _UNBUFFERED,
    "log-text-info-buffer-size": _UNBUFFERED,
    "log-json-split-stream": "kubesched writes every log line to stderr",
    "log-text-split-stream": "kubesched writes every log line to stderr",
}
"""Flag -> what kubesched does instead; printed as `flag --X is accepted: <why>; it has no
effect`."""

PROFILING_NOTICE = _NO_PPROF
