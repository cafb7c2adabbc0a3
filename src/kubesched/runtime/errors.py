"""What a scheduling cycle raises when it places nothing: no nodes at all, a plugin error, or
no node fits (`FitError`, whose text is kube-scheduler's FailedScheduling message)."""

from __future__ import annotations

from kubesched.errors import KubeschedError
from kubesched.framework.diagnosis import NO_NODES_AVAILABLE_MESSAGE, Diagnosis, fit_error_message
from kubesched.framework.status import Status
from kubesched.model import Pod


class NoNodesAvailableError(KubeschedError):
    """The snapshot has no nodes at all (upstream `ErrNoNodesAvailable`)."""

    def __init__(self) -> None:
        super().__init__(NO_NODES_AVAILABLE_MESSAGE)


class SchedulingError(KubeschedError):
    """A plugin failed with ERROR (or raised) during the cycle; `status` says which and why."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


class FitError(KubeschedError):
    """No node fits the pod; `str()` is kube-scheduler's FailedScheduling message.

    The message is built when read, so a PostFilter message added later shows up in it.
    """

    def __init__(self, *, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__()
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis
        self.nominated_node_name = ""
        """Set when a PostFilter plugin (preemption) nominated a node for the pod."""
        self.keep_nomination = False
        """True when PostFilter returned no result (upstream ModeNoop): the pod keeps the
        node it is nominated to. Otherwise its nomination becomes `nominated_node_name`
        ("" clears it, as when no PostFilter plugin ran)."""

    def __str__(self) -> str:
        return fit_error_message(num_all_nodes=self.num_all_nodes, diagnosis=self.diagnosis)
