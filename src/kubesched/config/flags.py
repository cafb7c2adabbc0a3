"""Parsing the command line into `Options`, in kube-scheduler's (pflag's) style.

`--flag=value` and `--flag value` both work; booleans are `--leader-elect` or
`--leader-elect=true|false` (also `--leader-elect false`); the last occurrence of a flag
wins, `--plugin-module` accumulates. Flags are never abbreviated. Aliases from the source
guides are accepted with a notice naming the canonical flag; an unknown flag is an error
with a "did you mean" suggestion. Parsing collects every error instead of stopping.
"""

from __future__ import annotations

import argparse
import difflib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from kubesched.apis.durations import EXAMPLES, DurationError, parse_duration
from kubesched.config.errors import ConfigError
from kubesched.config.flagtable import (
    ALIAS_ORIGINS,
    BY_NAME,
    CANONICAL,
    FLAGS,
    NOTICES,
    REMOVED,
    SCHEDULER_NAME_NOTICE,
    Flag,
    Kind,
)
from kubesched.config.flagtable_upstream import PROFILING_NOTICE

_TRUE = {"1", "t", "T", "true", "TRUE", "True"}
_FALSE = {"0", "f", "F", "false", "FALSE", "False"}
TRUE_SPELLINGS = frozenset(_TRUE)
"""What a boolean flag, and a feature gate's value, accepts as true (Go's strconv.ParseBool)."""
_LOGGING_FORMATS = ("text", "json")
_USAGE = """Usage:
  kubesched [run] [flags]

kubesched schedules the pods whose spec.schedulerName names one of its profiles,
beside the default kube-scheduler."""


@dataclass(frozen=True, slots=True)
class Options:
    """The parsed command line: `values` holds only the flags given (canonical name ->
    value), so that "given" is pflag's `Changed`; `notices` and `errors` are one line each."""

    values: dict[str, Any]
    notices: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()

    def given(self, name: str) -> bool:
        """True when the flag `name` (canonical, without dashes) was on the command line."""
        return name in self.values

    @property
    def config_file(self) -> str:
        """`--config`, or an empty string."""
        return str(self.values.get("config", ""))

    @property
    def write_config_to(self) -> str:
        """`--write-config-to` (a path or `-`), or an empty string."""
        return str(self.values.get("write-config-to", ""))

    @property
    def show_help(self) -> bool:
        """True for `-h`/`--help`."""
        return bool(self.values.get("help", False))

    @property
    def show_version(self) -> str:
        """`--version` (`true` or `raw`), or an empty string."""
        value = str(self.values.get("version", ""))
        return "" if value == "false" else value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ConfigError([message.removeprefix("argument ")])


class _Record(argparse.Action):
    """Remembers each occurrence (flag, spelling used, raw text) in command-line order."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,  # noqa: ARG002 - argparse's signature
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        occurrences: list[tuple[str, str, str | None]] = namespace.occurrences
        raw = values if isinstance(values, str) or values is None else str(values)
        occurrences.append((self.dest, option_string or self.dest, raw))


def _build_parser() -> _Parser:
    parser = _Parser(prog="kubesched", add_help=False, allow_abbrev=False)
    for flag in FLAGS:
        spellings = [f"--{flag.name}", *(f"--{alias}" for alias in flag.aliases)]
        if flag.short:
            spellings.insert(0, f"-{flag.short}")
        nargs = "?" if flag.kind is Kind.BOOL or flag.no_value is not None else None
        parser.add_argument(*spellings, dest=flag.name, action=_Record, nargs=nargs)
    return parser


def parse_options(argv: Sequence[str]) -> Options:
    """Parse `argv` (without the program name); problems land in `Options.errors`."""
    namespace = argparse.Namespace(occurrences=[])
    try:
        _, extra = _build_parser().parse_known_args(list(argv), namespace)
    except ConfigError as error:
        return Options(values={}, errors=error.errors)
    values: dict[str, Any] = {}
    notices: list[str] = []
    errors = _extra_errors(extra)
    for name, spelling, given in namespace.occurrences:
        _notice(notices, name=name, spelling=spelling)
        flag = BY_NAME[name]
        raw = flag.no_value if given is None and flag.no_value is not None else given
        try:
            _store(values, flag=flag, spelling=spelling, raw=raw)
        except ValueError as error:
            errors.append(str(error))
    notices.extend(_no_effect_notices(values))
    return Options(values=values, notices=tuple(notices), errors=tuple(errors))


def _notice(notices: list[str], *, name: str, spelling: str) -> None:
    alias = spelling.lstrip("-")
    if alias in ALIAS_ORIGINS:
        text = f"flag --{alias} is {ALIAS_ORIGINS[alias]}; using it as --{CANONICAL[alias]}"
    elif name == "scheduler-name":
        text = SCHEDULER_NAME_NOTICE
    else:
        return
    if text not in notices:
        notices.append(text)


def _no_effect_notices(values: dict[str, Any]) -> list[str]:
    """One line per given flag whose feature kubesched lacks (see `flagtable_upstream`)."""
    notices = [
        f"flag --{name} is accepted: {why}; it has no effect"
        for name, why in NOTICES.items()
        if name in values
    ]
    if values.get("profiling"):
        notices.append(f"flag --profiling is accepted: {PROFILING_NOTICE}")
    notices.extend(
        f"--feature-gates: {gate} accepted; kubesched has no switch for it and behaves as "
        "kube-scheduler v1.37 with its default"
        for gate in feature_gates(values.get("feature-gates", ()))
        if gate not in SWITCHED_GATES
    )
    return notices


GENERIC_WORKLOAD = "GenericWorkload"
NOMINATED_NODE_NAME_FOR_EXPECTATION = "NominatedNodeNameForExpectation"
"""Beta, on by default in v1.37: `nominatedNodeName` is set while a pod waits at Permit or
PreBind has work (so that autoscalers see where it is going)."""
SCHEDULER_POP_FROM_BACKOFF_Q = "SchedulerPopFromBackoffQ"
"""Beta, on by default since v1.33: with activeQ empty, the next pod comes from backoffQ
(rejected pods only), and backoffs end on whole seconds."""
OPPORTUNISTIC_BATCHING = "OpportunisticBatching"
"""Beta, on by default since v1.35: a pod with the same signature as the previous one tries
the next best node of that pod's cycle first (`kubesched.runtime.batch`)."""
TOPOLOGY_AWARE_WORKLOAD_SCHEDULING = "TopologyAwareWorkloadScheduling"
"""Alpha, off by default in v1.37, needs GenericWorkload: a pod group with a topology
constraint is placed within one domain (`kubesched.scheduler.podgroup_placement`)."""
COMPOSITE_POD_GROUP = "CompositePodGroup"
"""Alpha, off by default in v1.37, needs GenericWorkload and TopologyAwareWorkloadScheduling:
PodGroups under a `scheduling.k8s.io/v1alpha3` CompositePodGroup are queued and placed as
one tree (`kubesched.scheduler.composite_cycle`)."""
DRA_WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"
"""Beta, off by default in v1.37, needs GenericWorkload (and DynamicResourceAllocation, GA):
a PodGroup's `spec.resourceClaims` are shared by its members and reserved for the PodGroup
(`kubesched.plugins.dynamic_resources.workload_claims`)."""
GATE_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    DRA_WORKLOAD_RESOURCE_CLAIMS: (GENERIC_WORKLOAD,),
    TOPOLOGY_AWARE_WORKLOAD_SCHEDULING: (GENERIC_WORKLOAD,),
    COMPOSITE_POD_GROUP: (GENERIC_WORKLOAD, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
}
"""Switched gates that need others on (upstream's feature dependencies)."""
SWITCHED_GATES = frozenset(
    {
        GENERIC_WORKLOAD,
        DRA_WORKLOAD_RESOURCE_CLAIMS,
        TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
        COMPOSITE_POD_GROUP,
        NOMINATED_NODE_NAME_FOR_EXPECTATION,
        OPPORTUNISTIC_BATCHING,
        SCHEDULER_POP_FROM_BACKOFF_Q,
    }
)
"""The feature gates kubesched acts on (the others are accepted with a notice)."""


def feature_gates(items: Sequence[str]) -> dict[str, bool]:
    """`--feature-gates` values (`A=true,B=false`, repeatable) -> gate -> enabled."""
    gates: dict[str, bool] = {}
    for item in items:
        for pair in item.split(","):
            if pair.strip():
                name, _, value = pair.partition("=")
                gates[name.strip()] = _to_bool(value.strip())
    return gates


def _store(values: dict[str, Any], *, flag: Flag, spelling: str, raw: str | None) -> None:
    try:
        value = _CONVERT[flag.kind](raw)
    except ValueError as error:
        raise ValueError(f"{spelling}: {error}") from None
    problem = _check(flag.name, value)
    if problem:
        raise ValueError(f"{spelling}: {problem}")
    if flag.kind is Kind.LIST:
        value = (*values.get(flag.name, ()), value)
    values[flag.name] = value


def _check(name: str, value: Any) -> str:
    if name == "logging-format" and value not in _LOGGING_FORMATS:
        return f"{value!r} is not a log format; use --logging-format=text or --logging-format=json"
    if name == "plugin-module" and not value:
        return "needs a module name, such as --plugin-module=mycompany.scheduling"
    if name == "feature-gates":
        return _gate_problem(value)
    if name == "version" and value not in ("true", "false", "raw"):
        return f"{value!r}: use --version or --version=raw"
    if name == "tls-min-version" and value not in TLS_VERSIONS:
        return f"{value!r} is not a TLS version; use one of {', '.join(TLS_VERSIONS)}"
    return ""


TLS_VERSIONS = ("VersionTLS12", "VersionTLS13")
"""What `--tls-min-version` accepts (Python's ssl has no TLS 1.0/1.1 worth enabling)."""


def _gate_problem(value: str) -> str:
    for pair in value.split(","):
        name, sep, enabled = pair.partition("=")
        if pair.strip() and (not name.strip() or not sep):
            return f"{pair!r} is not Name=true|false, e.g. --feature-gates=SomeFeature=true"
        if pair.strip() and enabled.strip() not in (*_TRUE, *_FALSE):
            return f"{pair!r}: the value must be true or false"
    return ""


def _extra_errors(extra: list[str]) -> list[str]:
    errors: list[str] = []
    previous_was_flag = False
    for item in extra:
        if item.startswith("-") and item != "-":
            errors.append(_unknown_flag(item))
            previous_was_flag = "=" not in item
        elif previous_was_flag:  # the value of the unknown flag just reported
            previous_was_flag = False
        else:
            errors.append(
                f"unexpected argument {item!r}: kubesched takes only flags "
                "(booleans are written --leader-elect=false)"
            )
    return errors


def _unknown_flag(item: str) -> str:
    name = item.split("=", 1)[0].lstrip("-")
    if name in REMOVED:
        return f"flag --{name} {REMOVED[name]}"
    choices = [*BY_NAME, *CANONICAL]
    matches = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
    hint = f" (did you mean --{matches[0]}?)" if matches else ""
    return f"unknown flag {item.split('=', 1)[0]}{hint}; `kubesched run --help` lists the flags"


def _to_bool(raw: str | None) -> bool:
    if raw is None or raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ValueError(f"invalid boolean {raw!r}; use true or false, e.g. --leader-elect=false")


def _to_int(raw: str | None) -> int:
    text = raw or ""
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return int(text, 10)
    except ValueError:
        raise ValueError(f"invalid whole number {text!r}") from None


def _to_float(raw: str | None) -> float:
    text = raw or ""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"invalid number {text!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"invalid number {text!r}: must be finite")
    return value


def _to_duration(raw: str | None) -> float:
    try:
        return parse_duration(raw or "")
    except DurationError as error:
        raise ValueError(f"{error}; use {EXAMPLES}") from None


def _to_string(raw: str | None) -> str:
    return raw or ""


_CONVERT: dict[Kind, Callable[[str | None], Any]] = {
    Kind.STRING: _to_string,
    Kind.LIST: _to_string,
    Kind.BOOL: _to_bool,
    Kind.INT: _to_int,
    Kind.FLOAT: _to_float,
    Kind.DURATION: _to_duration,
}


def help_text() -> str:
    """`kubesched --help`: the flags grouped by section, as kube-scheduler prints them."""
    sections: dict[str, list[str]] = {}
    for flag in FLAGS:
        names = ", ".join(([f"-{flag.short}"] if flag.short else []) + [f"--{flag.name}"])
        value = "" if flag.kind is Kind.BOOL else f" {flag.kind.value}"
        lines = sections.setdefault(flag.section, [])
        lines.append(f"      {names}{value}")
        lines.append(f"            {flag.help}")
        lines.extend(f"            (alias: --{alias})" for alias in flag.aliases)
    body = [
        f"{name.capitalize()} flags:\n\n" + "\n".join(lines) for name, lines in sections.items()
    ]
    return "\n\n".join([_USAGE, *body]) + "\n"
