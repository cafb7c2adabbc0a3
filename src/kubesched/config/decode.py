"""Strict decoding of YAML values into typed Python values, as kube-scheduler's strict decoder.

A `Decoder` never stops at the first problem: it records one line per problem, each naming
the field path (`profiles[0].plugins.score.enabled[1].wieght`), and returns None for the
value so that decoding goes on. Unknown fields get a "did you mean" suggestion; YAML's
`null` means "not set" everywhere, as Go's JSON decoding into pointers does.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from kubesched.apis.durations import EXAMPLES, DurationError, parse_duration
from kubesched.apis.gotext import go_quote
from kubesched.config.errors import Problem

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_MAX_ARGS_DEPTH = 64
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
_CONTAINER_NAMES: dict[type, str] = {list: "a list", dict: "a mapping"}


def child(path: str, key: str) -> str:
    """The path of field `key` inside `path` (`a.b`), or `key` at the top level; an odd
    key is quoted (`a["odd key"]`)."""
    if not _PLAIN_KEY.fullmatch(key):
        return f"{path}[{json.dumps(key)}]"
    return f"{path}.{key}" if path else key


def index(path: str, position: int) -> str:
    """The path of item `position` of the list at `path`."""
    return f"{path}[{position}]"


def describe(value: object) -> str:
    """A short name for the YAML type of `value`, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}"
    return _CONTAINER_NAMES.get(type(value), type(value).__name__)


def suggest(word: str, choices: Collection[str]) -> str:
    """` (did you mean "x"?)` for the closest choice, or an empty string."""
    lowered = {choice.lower(): choice for choice in choices}
    if word.lower() in lowered:
        return f' (did you mean "{lowered[word.lower()]}"? field names are case-sensitive)'
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f' (did you mean "{matches[0]}"?)' if matches else ""


class Decoder:
    """Collects decoding errors and notices for one source (a file name, or `--config`)."""

    def __init__(self, *, source: str) -> None:
        self.source = source
        self.errors: list[str] = []
        self.notices: list[str] = []
        self.unknown_fields: list[tuple[str, str]] = []  # (path, hint)

    def problems(self) -> list[str]:
        """Every decoding error; the unknown fields as one, in kube-scheduler's strict
        decoding text (`strict decoding error: unknown field "a", unknown field "b"`) with
        the likely names as the hint. kube-scheduler reports a value it cannot decode before
        unknown fields, so those come first."""
        if not self.unknown_fields:
            return list(self.errors)
        fields = ", ".join(f'unknown field "{path}"' for path, _ in self.unknown_fields)
        hints = "; ".join(f"{path}: {hint}" for path, hint in self.unknown_fields if hint)
        hint = f"{self.source}: {hints}" if hints else self.source
        return [*self.errors, Problem(f"strict decoding error: {fields}", hint)]

    def error(self, path: str, message: str) -> None:
        """Record that the value at `path` is wrong; `message` says why and how to fix it."""
        self.errors.append(f"{self.source}: {path}: {message}")

    def notice(self, path: str, message: str) -> None:
        """Record a one-line notice about the value at `path` (accepted, but worth knowing)."""
        self.notices.append(f"{self.source}: {path}: {message}")

    def fields(
        self,
        value: object,
        *,
        path: str,
        allowed: Collection[str],
        hints: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """The known fields of the mapping `value` (null counts as empty); unknown ones are errors.

        `hints` gives a tailored message for a well-known wrong field name.
        """
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.error(path or "(top level)", f"must be a mapping, got {describe(value)}")
            return {}
        known: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                self.error(path or "(top level)", f"field names must be strings, got {key!r}")
            elif key in allowed:
                known[key] = item
            else:
                hint = (hints or {}).get(key) or suggest(key, allowed).removeprefix(" ")
                self.unknown_fields.append((child(path, key), hint.strip("()")))
        return known

    def items(self, value: object, *, path: str, go: tuple[str, str] | None = None) -> list[Any]:
        """The items of the list `value` (null counts as empty). `go`: the Go struct field
        and type kube-scheduler decodes it into, for its error text."""
        if value is None:
            return []
        if not isinstance(value, list):
            self._mistyped(path, value, go, f"must be a list, got {describe(value)}")
            return []
        return value

    def _mistyped(self, path: str, value: object, go: tuple[str, str] | None, message: str) -> None:
        """A value of the wrong JSON type: Go's JSON decoder's text when `go` names the struct
        field and type, else our own."""
        if go is None:
            self.error(path, message)
            return
        field, go_type = go
        exact = (
            f"json: cannot unmarshal {json_kind(value)} into Go struct field {field} of type "
            f"{go_type}"
        )
        self.errors.append(Problem(exact, f"{self.source}: {path}: {message}"))

    def string(self, value: object, *, path: str) -> str | None:
        """`value` as a string; numbers and booleans are errors (quote them in YAML)."""
        if value is None or isinstance(value, str):
            return value
        self.error(path, f"must be a string, got {describe(value)} (quote it in YAML)")
        return None

    def boolean(self, value: object, *, path: str) -> bool | None:
        """`value` as a boolean (YAML true/false)."""
        if value is None or isinstance(value, bool):
            return value
        self.error(path, f"must be true or false, got {describe(value)}")
        return None

    def integer(
        self, value: object, *, path: str, bits: int = 32, go: str | None = None
    ) -> int | None:
        """`value` as a whole number that fits Go's int32 (or int64); `go`: the Go struct
        kube-scheduler decodes the field into, for its error text."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            go_field = (f"{go}.{path.rsplit('.', 1)[-1]}", f"int{bits}") if go else None
            self._mistyped(path, value, go_field, f"must be a whole number, got {describe(value)}")
            return None
        low, high = _INT32 if bits == 32 else _INT64
        if not low <= value <= high:
            self.error(path, f"{value} does not fit in a {bits}-bit integer")
            return None
        return value

    def number(self, value: object, *, path: str) -> float | None:
        """`value` as a finite number (whole or decimal)."""
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.error(path, f"must be a number, got {describe(value)}")
            return None
        if not math.isfinite(value):
            self.error(path, f"must be a finite number, got {value}")
            return None
        return float(value)

    def duration(self, value: object, *, path: str) -> float | None:
        """`value` as seconds, from a Go duration string such as `15s`."""
        if value is None:
            return None
        if not isinstance(value, str):
            self.error(path, f"must be {EXAMPLES} (a string), got {describe(value)}")
            return None
        try:
            return parse_duration(value)
        except DurationError as error:  # Go's time.ParseDuration text, as kube-scheduler's
            go_text = re.sub(r"'([^']*)'", lambda found: go_quote(found[1]), str(error))
            self.errors.append(
                Problem(f"time: {go_text}", f"{self.source}: {path}: use {EXAMPLES}")
            )
            return None

    def json_object(self, value: object, *, path: str) -> dict[str, Any] | None:
        """`value` as a JSON-like mapping (plugin args): strings, numbers, booleans, null,
        lists and mappings with string keys only, nested at most 64 deep."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.error(path, f"must be a mapping, got {describe(value)}")
            return None
        problem = _json_problem(value, depth=0)
        if problem:
            self.error(path, problem)
            return None
        return value


def json_kind(value: object) -> str:
    """The JSON type of `value` as Go's `json.UnmarshalTypeError` names it."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _json_problem(value: object, *, depth: int) -> str:
    """Why `value` is not a JSON value, or an empty string."""
    if depth > _MAX_ARGS_DEPTH:
        return f"nested deeper than {_MAX_ARGS_DEPTH} levels (or refers to itself)"
    if isinstance(value, dict):
        bad_keys = [key for key in value if not isinstance(key, str)]
        if bad_keys:
            return f"keys must be strings, got {bad_keys[0]!r}"
        return _first_problem(value.values(), depth=depth + 1)
    if isinstance(value, list):
        return _first_problem(value, depth=depth + 1)
    return _scalar_problem(value)


def _scalar_problem(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"numbers must be finite, got {value}"
    if value is None or isinstance(value, str | int | float):
        return ""
    return f"holds a {type(value).__name__}, which JSON cannot express (quote it)"


def _first_problem(values: Iterable[object], *, depth: int) -> str:
    for item in values:
        problem = _json_problem(item, depth=depth)
        if problem:
            return problem
    return ""
