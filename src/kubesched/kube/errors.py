"""Errors from the API server, carrying the HTTP status code and the Status reason."""

from __future__ import annotations

from typing import Any

from kubesched.errors import KubeschedError


class ApiError(KubeschedError):
    """A non-2xx answer from the API server (`status`, `reason` from its Status object)."""

    def __init__(self, status: int, reason: str, message: str, *, path: str = "") -> None:
        super().__init__(f"{status} {reason}: {message}" + (f" ({path})" if path else ""))
        self.status = status
        self.reason = reason
        self.message = message
        self.path = path

    @classmethod
    def from_status(cls, status: int, body: Any, *, path: str = "") -> ApiError:
        """Build the most specific subclass for an HTTP status and a decoded Status body."""
        reason = ""
        message = ""
        if isinstance(body, dict):
            reason = str(body.get("reason") or "")
            message = str(body.get("message") or "")
        elif isinstance(body, str | bytes):
            message = body.decode(errors="replace") if isinstance(body, bytes) else body
        error_type = _BY_STATUS.get(status, ApiError)
        if status == 409 and reason == "AlreadyExists":
            error_type = AlreadyExists
        return error_type(
            status, reason or _DEFAULT_REASON.get(status, "Unknown"), message, path=path
        )


class NotFound(ApiError):
    """404: the object does not exist (any more)."""


class Conflict(ApiError):
    """409: stale resourceVersion, or (for bindings) the pod is already assigned."""


class AlreadyExists(Conflict):
    """409 with reason AlreadyExists: a create lost the race."""


class Gone(ApiError):
    """410: the resourceVersion a watch asked for has been compacted away; relist."""


class Forbidden(ApiError):
    """403: RBAC denies this request."""


class Unauthorized(ApiError):
    """401: the credentials were not accepted."""


class TooManyRequests(ApiError):
    """429: the API server asks us to slow down."""


class ConnectionFailed(ApiError):
    """The API server could not be reached, or did not answer in time (status 0)."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(0, "ConnectionFailed", message, path=path)


class Fenced(ApiError):
    """Not sent: this replica's leader Lease was not renewed within renewDeadline, so another
    replica may lead already and no scheduling decision (Binding, status patch, claim
    allocation, preemption deletion, nomination) may leave the process. Checked when the
    request is written to the socket (`KubeClient`'s write fence)."""

    def __init__(self, message: str, *, path: str = "") -> None:
        super().__init__(0, "Fenced", message, path=path)


class WatchIdle(ConnectionFailed):
    """A watch brought nothing, not even a bookmark, for its inactivity timeout. The API
    server sends bookmarks only for resources that changed since it started, so a watch on
    a resource nobody changes is quiet and healthy: renew it (a dead connection then fails
    the new watch request)."""


_BY_STATUS: dict[int, type[ApiError]] = {
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    410: Gone,
    429: TooManyRequests,
}
_DEFAULT_REASON = {
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    409: "Conflict",
    410: "Expired",
    429: "TooManyRequests",
    500: "InternalError",
}
