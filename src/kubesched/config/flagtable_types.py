"""The shape of a flag: its kind, section and help (shared by the flag tables)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Kind(Enum):
    """How a flag's value is read."""

    STRING = "string"
    BOOL = "bool"  # --flag, --flag=true|false (Go's strconv.ParseBool spellings)
    INT = "int"
    FLOAT = "float"
    DURATION = "duration"  # Go syntax: 15s, 1m30s, 500ms
    LIST = "strings"  # repeatable


@dataclass(frozen=True, slots=True)
class Flag:
    """One flag: `name` without dashes; `aliases` are other accepted names (with notices)."""

    name: str
    kind: Kind
    section: str
    help: str
    aliases: tuple[str, ...] = ()
    short: str = ""
    no_value: str | None = None
    """For a non-boolean flag that may be given bare (`--version`): the value it then has."""


MISC = "misc"
LEADER = "leader election"
DEPRECATED = "deprecated"  # ignored when --config is given, as in kube-scheduler
SERVING = "secure serving"
KUBESCHED = "kubesched"
LOGS = "logs"
