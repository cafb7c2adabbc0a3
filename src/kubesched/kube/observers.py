"""What `KubeClient` tells of its requests (the `rest_client_*` metrics listen)."""

from __future__ import annotations

from typing import Protocol


class RequestObserver(Protocol):
    """Told of every finished request (`rest_client_*` metrics): HTTP method, `host:port`,
    status code (`<error>` when no answer came), seconds."""

    def __call__(self, method: str, host: str, code: str, seconds: float) -> None: ...


class RetryObserver(Protocol):
    """Told of every attempt after the first (`rest_client_request_retries_total`): HTTP
    method, `host:port`, status code of that attempt (`<error>` when no answer came)."""

    def __call__(self, method: str, host: str, code: str) -> None: ...


def ignore_request(method: str, host: str, code: str, seconds: float) -> None:
    """The default request observer."""


def ignore_retry(method: str, host: str, code: str) -> None:
    """The default retry observer."""
