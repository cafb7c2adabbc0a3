"""Polling helpers whose failure message shows the last state they observed.

pod = wait_for(lambda: api.get("Pod", "p", namespace=ns), until=is_bound,
               message="pod p is bound")
assert_stays(lambda: api.get("Pod", "q", namespace=ns), holds=is_pending,
             duration=5, message="pod q stays Pending")
"""

from __future__ import annotations

import pprint
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def wait_for(
    observe: Callable[..., T],  # called with no arguments (a lambda may bind loop variables)
    *,
    until: Callable[[T], Any] = bool,
    timeout: float = 30.0,
    interval: float = 0.2,
    message: str = "condition",
) -> T:
    """Call `observe` until `until(state)` is true and return that state; on timeout fail
    with `message` and the last observed state (or the last error `observe` raised)."""
    deadline = time.monotonic() + timeout
    last: Any = "<nothing observed>"
    while True:
        try:
            state = observe()
        except Exception as error:  # the object may not exist yet: keep polling
            last = f"<{type(error).__name__}: {error}>"
        else:
            if until(state):
                return state
            last = state
        if time.monotonic() >= deadline:
            shown = _show(last)
            raise AssertionError(
                f"timed out after {timeout:g} s: {message}\nlast observed:\n{shown}"
            )
        time.sleep(interval)


def assert_stays(
    observe: Callable[..., T],  # called with no arguments (a lambda may bind loop variables)
    *,
    holds: Callable[[T], Any],
    duration: float = 5.0,
    interval: float = 0.25,
    message: str = "condition",
) -> T:
    """Check that `holds(observe())` stays true for `duration` seconds; return the last state."""
    deadline = time.monotonic() + duration
    while True:
        state = observe()
        if not holds(state):
            raise AssertionError(f"no longer true: {message}\nobserved:\n{_show(state)}")
        if time.monotonic() >= deadline:
            return state
        time.sleep(interval)


def _show(state: Any) -> str:
    return pprint.pformat(state, width=100, sort_dicts=False)[:6000]


# -- pod predicates -----------------------------------------------------------------------
def node_name(pod: dict[str, Any]) -> str:
    """`spec.nodeName`, or "" when the pod is not bound."""
    return str(pod.get("spec", {}).get("nodeName") or "")


def is_bound(pod: dict[str, Any]) -> bool:
    """True once a scheduler bound the pod to a node."""
    return bool(node_name(pod))


def is_pending_unbound(pod: dict[str, Any]) -> bool:
    """True while the pod is Pending and on no node."""
    return pod.get("status", {}).get("phase") == "Pending" and not node_name(pod)


def condition(pod: dict[str, Any], kind: str) -> dict[str, Any] | None:
    """The pod condition of type `kind` (e.g. PodScheduled), or None."""
    for entry in pod.get("status", {}).get("conditions", []) or []:
        if entry.get("type") == kind:
            return dict(entry)
    return None


def unschedulable_message(pod: dict[str, Any]) -> str:
    """The message of PodScheduled=False (why the pod is not placed), "" while it has none."""
    scheduled = condition(pod, "PodScheduled") or {}
    return str(scheduled.get("message", "")) if scheduled.get("status") == "False" else ""


def is_unschedulable(pod: dict[str, Any]) -> bool:
    """True when PodScheduled is False with reason Unschedulable."""
    scheduled = condition(pod, "PodScheduled")
    if not scheduled:
        return False
    return scheduled["status"] == "False" and scheduled.get("reason") == "Unschedulable"
