"""The flags `/flagz` lists: every flag of kube-scheduler v1.37.2 plus kubesched's own, each
with its value as pflag prints it (`15s`, `5m0s`, `true`, `[/healthz,/readyz,/livez]`): the
value given on the command line (an alias counts for its canonical flag), else the flag's
default. As kube-scheduler's, these are the flags' values, not the effective configuration:
with `--config`, the file's values are in /configz. A self-signed certificate made in
`--cert-dir` shows as `--tls-cert-file`/`--tls-private-key-file`, as upstream.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from kubesched.config.errors import ConfigError
from kubesched.config.flags import parse_options
from kubesched.config.flagtable import FLAGS
from kubesched.config.flagtable_types import Kind
from kubesched.server.certs import CERT_NAME, KEY_NAME
from kubesched.server.resource_metrics import go_float

_EMPTY_LIST = "[]"
DEFAULTS: Mapping[str, str] = {
    "allow-metric-labels": _EMPTY_LIST,
    "authentication-skip-lookup": "false",
    "authentication-token-webhook-cache-ttl": "10s",
    "authentication-tolerate-lookup-failure": "true",
    "authorization-always-allow-paths": "[/healthz,/readyz,/livez]",
    "authorization-webhook-cache-authorized-ttl": "10s",
    "authorization-webhook-cache-unauthorized-ttl": "10s",
    "bind-address": "0.0.0.0",  # noqa: S104 - kube-scheduler's default, printed
    "contention-profiling": "true",
    "disable-http2-serving": "false",
    "help": "false",
    "http2-max-streams-per-connection": "0",
    "kube-api-burst": "100",
    "kube-api-content-type": "application/vnd.kubernetes.protobuf",
    "kube-api-qps": "50",
    "leader-elect": "true",
    "leader-elect-lease-duration": "15s",
    "leader-elect-renew-deadline": "10s",
    "leader-elect-resource-lock": "leases",
    "leader-elect-resource-name": "kube-scheduler",
    "leader-elect-resource-namespace": "kube-system",
    "leader-elect-retry-period": "2s",
    "log-flush-frequency": "5s",
    "log-json-info-buffer-size": "0",
    "log-json-split-stream": "false",
    "log-text-info-buffer-size": "0",
    "log-text-split-stream": "false",
    "logging-format": "text",
    "permit-address-sharing": "false",
    "permit-port-sharing": "false",
    "pod-initial-backoff-seconds": "1",
    "pod-max-backoff-seconds": "10",
    "pod-max-in-unschedulable-pods-duration": "5m0s",
    "profiling": "true",
    "requestheader-extra-headers-prefix": "[x-remote-extra-]",
    "requestheader-group-headers": "[x-remote-group]",
    "requestheader-username-headers": "[x-remote-user]",
    "scheduler-name": "kubesched",
    "secure-port": "10259",
    "v": "0",
    "version": "false",
}
"""Defaults that are not the zero value of their kind ("", "false", "0", "[]")."""
_ZERO = {Kind.BOOL: "false", Kind.INT: "0", Kind.FLOAT: "0", Kind.DURATION: "0s"}
_PLAIN_LISTS = ("feature-gates", "vmodule")
"""Lists pflag prints without brackets (a map of gates; klog's module spec)."""


def command_line() -> list[str]:
    """This process's flags (`kubesched [run] FLAGS`)."""
    args = sys.argv[1:]
    return args[1:] if args[:1] == ["run"] else args


def flag_values(argv: Sequence[str]) -> dict[str, str]:
    """Every flag's value as `/flagz` prints it (see the module docstring)."""
    try:
        given = parse_options(argv).values
    except ConfigError:
        given = {}
    values: dict[str, str] = {}
    for flag in FLAGS:
        if flag.name in given:
            values[flag.name] = _format(flag.name, flag.kind, given[flag.name])
        else:
            zero = _ZERO.get(flag.kind, _zero(flag.kind, flag.name))
            values[flag.name] = DEFAULTS.get(flag.name, zero)
    cert_dir = given.get("cert-dir")
    if cert_dir and "tls-cert-file" not in given:
        values["tls-cert-file"] = str(Path(cert_dir) / CERT_NAME)
        values["tls-private-key-file"] = str(Path(cert_dir) / KEY_NAME)
    return values


def _zero(kind: Kind, name: str = "") -> str:
    return _EMPTY_LIST if kind is Kind.LIST and name not in _PLAIN_LISTS else ""


def _format(name: str, kind: Kind, value: Any) -> str:
    if kind is Kind.BOOL:
        return "true" if value else "false"
    if kind is Kind.DURATION:
        return go_duration(float(value))
    if kind is Kind.FLOAT:
        return go_float(float(value))
    if kind is Kind.LIST:
        items = [i.strip() for v in value for i in str(v).split(",") if i.strip()]
        if name == "feature-gates":
            return ",".join(sorted(items))
        return ",".join(items) if name in _PLAIN_LISTS else f"[{','.join(items)}]"
    return str(value)


def go_duration(seconds: float) -> str:
    """Go's time.Duration.String(): `0s`, `500ms`, `15s`, `5m0s`, `1h30m0s`."""
    nanos = round(seconds * 1e9)
    if nanos == 0:
        return "0s"
    sign, nanos = ("-" if nanos < 0 else ""), abs(nanos)
    if nanos < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= size:
                return f"{sign}{_trim(Decimal(nanos) / size)}{unit}"
    hours, rest = divmod(nanos, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    text = f"{hours}h" if hours else ""
    text += f"{minutes}m" if hours or minutes else ""
    return f"{sign}{text}{_trim(Decimal(rest) / 1_000_000_000)}s"


def _trim(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
