"""PriorityClasses a test creates for itself (cluster-scoped, so suffixed) and deletes."""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tests.e2e.harness.api import ApiClient


@contextmanager
def priority_classes(
    api: ApiClient, prefix: str, values: Sequence[tuple[str, int]]
) -> Iterator[tuple[str, ...]]:
    """One PriorityClass `<prefix>-<short>-<suffix>` per (short name, value), in order."""
    suffix = secrets.token_hex(3)
    names = tuple(f"{prefix}-{short}-{suffix}" for short, _ in values)
    for name, (_, value) in zip(names, values, strict=True):
        body = {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": name},
            "value": value,
        }
        api.create(body)
    try:
        yield names
    finally:
        for name in names:
            api.delete("PriorityClass", name)
