"""The name forms a pod, a Lease or a namespace can carry (apimachinery's DNS-1123 rules)."""

from __future__ import annotations

import re

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL.pattern}(\.{_DNS_LABEL.pattern})*")


def is_dns_subdomain(name: str) -> bool:
    """True for a DNS-1123 subdomain, the form of a Lease name and of spec.schedulerName."""
    return len(name) <= 253 and _DNS_SUBDOMAIN.fullmatch(name) is not None


def is_dns_label(name: str) -> bool:
    """True for a DNS-1123 label, the form of a namespace name."""
    return len(name) <= 63 and _DNS_LABEL.fullmatch(name) is not None
