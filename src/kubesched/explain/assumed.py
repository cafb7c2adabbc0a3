"""Pods the leader holds at Permit use room on their nodes: its cache has assumed them there,
though the API server still shows them pending. With the Permit view, explain counts them
the same way, so a gang member's Filter verdicts see the room its waiting siblings (and any
other waiting pod) already took."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from kubesched.explain.group_report import PermitView
from kubesched.model import Pod


def with_assumed(pods: Sequence[Pod], view: PermitView, *, own_uid: str) -> list[Pod]:
    """`pods`, each one held at Permit (but the explained pod) placed on its node."""
    if not view.known:
        return list(pods)
    nodes = {record.uid: record.node for record in view.held if record.node}
    return [
        replace(pod, node_name=nodes[pod.uid])
        if pod.uid in nodes and not pod.node_name and pod.uid != own_uid
        else pod
        for pod in pods
    ]


def assumed_note(view: PermitView, *, own_uid: str) -> str:
    """The note saying how many held pods explain counted on their nodes ("" for none)."""
    count = sum(1 for record in view.held if record.uid != own_uid) if view.known else 0
    if not count:
        return ""
    return (
        f"the leader holds {count} other pod(s) at Permit: explain counts each on its node, "
        "as the scheduler's cache assumes them"
    )
