"""kube-scheduler's validation texts: apimachinery's `field.Error` bodies, its error aggregates
and its label-key rules, so that args errors read as upstream's do.

    invalid("NodeAffinityArgs.x.key", "a b", "name part must ...")
    # 'NodeAffinityArgs.x.key: Invalid value: "a b": name part must ...'
    raise_all(["a: ...", "b: ..."])   # ArgsError('[a: ..., b: ...]'), or the one error alone

Values print as Go's `field.Error` prints them: numbers and booleans as they are, strings
quoted (`%q`), anything else as JSON (`null`, `["a"]`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from kubesched.plugins.helper.args import ArgsError

_LABEL_KEY_CHARS = "[A-Za-z0-9]"
_LABEL_KEY_FORMAT = f"({_LABEL_KEY_CHARS}[-A-Za-z0-9_.]*)?{_LABEL_KEY_CHARS}"
_LABEL_KEY_MESSAGE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an"
    " alphanumeric character"
)
_LABEL_KEY = re.compile(_LABEL_KEY_FORMAT)
_LABEL_KEY_MAX = 63
_DNS_LABEL_FORMAT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_FORMAT = rf"{_DNS_LABEL_FORMAT}(\.{_DNS_LABEL_FORMAT})*"
_DNS_SUBDOMAIN = re.compile(_DNS_SUBDOMAIN_FORMAT)
_DNS_SUBDOMAIN_MESSAGE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or"
    " '.', and must start and end with an alphanumeric character"
)
_DNS_SUBDOMAIN_MAX = 253
_LABEL_VALUE_FORMAT = f"({_LABEL_KEY_FORMAT})?"
_LABEL_VALUE = re.compile(_LABEL_VALUE_FORMAT)
_LABEL_VALUE_MESSAGE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or"
    " '.', and must start and end with an alphanumeric character"
)


def go_value(value: Any) -> str:
    """A bad value as `field.Error` prints it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def invalid(path: str, value: Any, detail: str) -> str:
    return f"{path}: Invalid value: {go_value(value)}: {detail}"


def not_supported(path: str, value: Any, supported: Sequence[str]) -> str:
    quoted = ", ".join(json.dumps(name) for name in supported)
    return f"{path}: Unsupported value: {go_value(value)}: supported values: {quoted}"


def required(path: str, detail: str = "") -> str:
    return f"{path}: Required value: {detail}" if detail else f"{path}: Required value"


def forbidden(path: str, detail: str) -> str:
    return f"{path}: Forbidden: {detail}"


def duplicate(path: str, value: Any) -> str:
    return f"{path}: Duplicate value: {go_value(value)}"


def aggregate(errors: Iterable[str]) -> str:
    """utilerrors' aggregate text: one error alone, several as `[a, b]` (repeats dropped)."""
    unique = list(dict.fromkeys(errors))
    return unique[0] if len(unique) == 1 else f"[{', '.join(unique)}]"


def raise_all(errors: Sequence[str]) -> None:
    """Raise the aggregate of `errors` as an ArgsError; nothing when there are none."""
    if errors:
        raise ArgsError(aggregate(errors))


def _regex_error(message: str, regex: str, *examples: str) -> str:
    """apimachinery's `RegexError`, examples and all (its double space included)."""
    if not examples:
        return f"{message} (regex used for validation is '{regex}')"
    shown = " or ".join(f"'{example}', " for example in examples)
    return f"{message} (e.g. {shown}regex used for validation is '{regex}')"


def _dns_subdomain_errors(value: str) -> list[str]:
    errors = []
    if len(value) > _DNS_SUBDOMAIN_MAX:
        errors.append(f"must be no more than {_DNS_SUBDOMAIN_MAX} bytes")
    if not _DNS_SUBDOMAIN.fullmatch(value):
        errors.append(_regex_error(_DNS_SUBDOMAIN_MESSAGE, _DNS_SUBDOMAIN_FORMAT, "example.com"))
    return errors


def label_key_errors(value: str) -> list[str]:
    """apimachinery's `IsLabelKey` (`IsQualifiedName`): what is wrong with a label key, in its
    words; empty when it is valid (`[prefix/]name`)."""
    parts = value.split("/")
    if len(parts) > 2:
        name_rule = _regex_error(
            _LABEL_KEY_MESSAGE, _LABEL_KEY_FORMAT, "MyName", "my.name", "123-abc"
        )
        prefix_rule = "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        return [f"a valid label key {name_rule} {prefix_rule}"]
    errors = []
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += [f"prefix part {error}" for error in _dns_subdomain_errors(prefix)]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > _LABEL_KEY_MAX:
        errors.append(f"name part must be no more than {_LABEL_KEY_MAX} bytes")
    if not _LABEL_KEY.fullmatch(name):
        rule = _regex_error(_LABEL_KEY_MESSAGE, _LABEL_KEY_FORMAT, "MyName", "my.name", "123-abc")
        errors.append(f"name part {rule}")
    return errors


def label_value_errors(value: str) -> list[str]:
    """apimachinery's `IsValidLabelValue`."""
    errors = []
    if len(value) > _LABEL_KEY_MAX:
        errors.append(f"must be no more than {_LABEL_KEY_MAX} bytes")
    if not _LABEL_VALUE.fullmatch(value):
        errors.append(
            _regex_error(_LABEL_VALUE_MESSAGE, _LABEL_VALUE_FORMAT, "MyValue", "my_value", "12345")
        )
    return errors


def label_name_errors(path: str, value: str) -> list[str]:
    """metav1validation's `ValidateLabelName`: one Invalid error per problem of the key."""
    return [invalid(path, value, problem) for problem in label_key_errors(value)]
