"""apimachinery's `IsQualifiedName` (`[prefix/]name`, a label key's form) in its own words,
for the names in the config file that must have that form (extenders' managed resources).

The plugins' args checks have the same rule in `plugins.helper.fielderrors`; config may not
import the plugins' helpers from here (the tools above it reach config without plugins)."""

from __future__ import annotations

import json
import re

_NAME_FORMAT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME = re.compile(_NAME_FORMAT)
_NAME_RULE = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    f"validation is '{_NAME_FORMAT}')"
)
_DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FORMAT = rf"{_DNS_LABEL}(\.{_DNS_LABEL})*"
_SUBDOMAIN = re.compile(_SUBDOMAIN_FORMAT)
_SUBDOMAIN_RULE = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    f"used for validation is '{_SUBDOMAIN_FORMAT}')"
)


def qualified_name_errors(value: str) -> list[str]:
    """What is wrong with `value` as a qualified name (empty when nothing)."""
    parts = value.split("/")
    if len(parts) > 2:
        prefix_rule = "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        return [f"a valid label key {_NAME_RULE} {prefix_rule}"]
    errors = []
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            if len(prefix) > 253:
                errors.append("prefix part must be no more than 253 bytes")
            if not _SUBDOMAIN.fullmatch(prefix):
                errors.append(f"prefix part {_SUBDOMAIN_RULE}")
    name = parts[-1]
    if not name:
        errors.append("name part must be non-empty")
    elif len(name) > 63:
        errors.append("name part must be no more than 63 bytes")
    if not _NAME.fullmatch(name):
        errors.append(f"name part {_NAME_RULE}")
    return errors


def go_quoted(value: str) -> str:
    """A string as apimachinery's `field.Invalid` prints it (`%q`)."""
    return json.dumps(value, ensure_ascii=False)
