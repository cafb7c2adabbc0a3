"""A KubeClient that never writes: every request but a GET is refused before it is sent.

Shadow mode (`--shadow-scheduler-name`) builds every API client of the process this way, so a
path that would write (a Binding, an Event, a pod status patch, a nomination, a Lease, a claim
allocation, a preemption's deletion) cannot reach the API server, whatever code forgot to
check the mode: the refusal is structural, at the one place every request goes through.

The one exception a client may be given (`allow_reviews=True`, the delegated-auth client of
the secure port): POSTs of TokenReviews and SubjectAccessReviews, which ask the API server a
question and store nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubesched.apis.config import JSON_CONTENT_TYPE as JSON
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError

REVIEW_PATHS = frozenset(
    {
        "/apis/authentication.k8s.io/v1/tokenreviews",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    }
)
"""The create-only review APIs of delegated authentication and authorization."""


class ReadOnlyRefused(ApiError):
    """Not sent: this client is read-only (shadow mode writes nothing to the cluster)."""

    def __init__(self, method: str, path: str) -> None:
        super().__init__(
            0,
            "ReadOnly",
            f"{method} {path}: not sent: kubesched runs in shadow mode "
            "(--shadow-scheduler-name) and writes nothing to the cluster",
            path=path,
        )


class ReadOnlyKubeClient(KubeClient):
    """`KubeClient` whose `request` refuses every method but GET (watches are GETs too)."""

    def __init__(self, *args: Any, allow_reviews: bool = False, **options: Any) -> None:
        """The arguments of `KubeClient`; `allow_reviews`: TokenReview and
        SubjectAccessReview POSTs may go out (they store nothing)."""
        super().__init__(*args, **options)
        self._allowed = REVIEW_PATHS if allow_reviews else frozenset()

    async def request(
        self,
        method: str,
        path: str,
        *,
        body: Any = None,
        params: Mapping[str, str] | None = None,
        content_type: str = JSON,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """`KubeClient.request` for a GET (or an allowed review); raises ReadOnlyRefused
        for anything else, without sending it."""
        if method.upper() != "GET" and not (method.upper() == "POST" and path in self._allowed):
            raise ReadOnlyRefused(method, path)
        return await super().request(
            method, path, body=body, params=params, content_type=content_type, timeout=timeout
        )
