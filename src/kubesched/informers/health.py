"""How an informer is doing, for /readyz, /livez, the cache-sync wait and the logs.

A reflector never gives up (every error is retried with jittered backoff), so "unhealthy"
means one of three things, each with its own remedy:

* not synced yet: the first list has not completed (the error says why, e.g. a 403);
* stalled: the reflector made no progress (no list page, no watch event, no retry) for
  longer than any of its own timeouts allow, so something inside it is stuck;
* dead: its task ended, which only a bug can cause; restarting kubesched rebuilds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kubesched.kube.errors import ApiError, Forbidden, Unauthorized


@dataclass(frozen=True, slots=True)
class InformerHealth:
    """A snapshot of one informer's state."""

    path: str
    synced: bool
    dead: bool
    stalled: bool
    # The last list/watch error while it is still failing ("" once an attempt succeeded).
    error: str = ""
    failing_for: float = 0.0

    @property
    def alive(self) -> bool:
        """Running and making progress (what /livez asks)."""
        return not self.dead and not self.stalled

    @property
    def ready(self) -> bool:
        """Synced and alive (what /readyz asks)."""
        return self.synced and self.alive

    def describe(self) -> str:
        """One phrase for a log line: `/api/v1/pods: 403 Forbidden: ...`."""
        if self.dead:
            state = "stopped"
        elif self.stalled:
            state = "stalled"
        elif not self.synced:
            state = "not synced"
        else:
            state = "failing"
        return f"{self.path} ({state}{': ' + self.error if self.error else ''})"


def failure_hint(exc: BaseException, path: str) -> str:
    """What to do about a list/watch error on `path`, for the log line that reports it."""
    resource = path.rstrip("/").rsplit("/", 1)[-1]
    if isinstance(exc, Forbidden):
        return (
            f"grant list and watch on {resource} to kubesched's identity "
            "(`kubesched manifests` prints the RBAC; `kubesched doctor` checks it)"
        )
    if isinstance(exc, Unauthorized):
        return "the API server rejects kubesched's credentials; check --kubeconfig"
    if isinstance(exc, ApiError) and exc.status == 0:
        return "check that the API server is up and reachable"
    return "retrying with backoff; if it persists, report it with this line"
