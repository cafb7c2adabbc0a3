"""The RBAC pitfall of the guide on leader-election conflicts between a custom scheduler and
kube-scheduler, explained the first time kubesched meets it.

That guide's Role lists `leases` get/create/update restricted by `resourceNames`. RBAC
cannot restrict `create` by name (a create request carries no name to match), so that rule
never allows creating the Lease: the API server answers 403 on the first start, forever.
"""

from __future__ import annotations

import logging

from kubesched.framework.logkv import kv
from kubesched.kube.errors import ApiError

log = logging.getLogger(__name__)

REPEAT_INTERVAL_SECONDS = 60.0


def create_forbidden_fix(lease: str) -> str:
    """What to change so the Lease `namespace/name` can be created."""
    namespace = lease.partition("/")[0]
    return (
        "RBAC resourceNames cannot restrict create (a create request has no name), so a "
        "rule listing leases get/create/update under resourceNames, as in the guide on "
        "leader-election conflicts between a custom scheduler and kube-scheduler, can never "
        "create the Lease; add a rule for leases (apiGroup coordination.k8s.io) with verbs "
        f"[create] and no resourceNames in namespace {namespace} (`kubesched manifests` "
        "generates it), then check with `kubesched doctor --service-account=NAMESPACE/NAME`"
    )


class LeaseCreateHint:
    """Explains a 403 on Lease create once in full, then repeats a short line at most every
    `REPEAT_INTERVAL_SECONDS` instead of one raw error per retry."""

    def __init__(self) -> None:
        self._explained = False
        self._last_logged: float | None = None

    def forbidden(self, lease: str, error: ApiError, *, now: float) -> None:
        """Report a 403 answered to creating `lease` at monotonic time `now`."""
        if not self._explained:
            self._explained = True
            self._last_logged = now
            log.error(
                "cannot create the leader-election Lease",
                extra=kv(lease=lease, err=error, fix=create_forbidden_fix(lease)),
            )
            return
        if self._last_logged is not None and now - self._last_logged < REPEAT_INTERVAL_SECONDS:
            return
        self._last_logged = now
        log.warning(
            "still cannot create the leader-election Lease (403); see the first error for "
            "the RBAC fix, or run kubesched doctor",
            extra=kv(lease=lease),
        )
