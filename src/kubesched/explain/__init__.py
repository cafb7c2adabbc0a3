"""`kubesched explain`: where a pending pod would go, and why, without writing anything.

    fw = build_framework(profile=..., registry=..., handle=ReadOnlyHandle(snapshot))
    explanation = explain_pod(fw, pod, snapshot.node_infos)     # pure, testable
    print(table(explanation))                                   # or as_json(explanation)

    explanation = await explain_live(GetOnly(client), config=..., registry=..., source=...)

`engine` runs the profile's plugins over every node; `live` reads the cluster (GET only) and
builds the scheduler's cache and snapshot; `target` resolves which pod and which profile;
`group_live` adds the pod's group (PodGroup, members, what the scheduler holds at Permit);
`placements` a native gang's topology placements (`TopologyAwareWorkloadScheduling`);
`render` prints. The scheduling loop, queue, binder and event recorder are never involved.
"""

from kubesched.explain.engine import NOT_ENABLED, explain_pod
from kubesched.explain.group_live import PermitSource
from kubesched.explain.group_report import GroupReport, Member, PermitView
from kubesched.explain.handle import ReadOnlyError, ReadOnlyHandle
from kubesched.explain.live import GetOnly, PodSource, Reader, build_snapshot, explain_live
from kubesched.explain.render import as_json, summary, table, to_dict
from kubesched.explain.report import Explanation, NodeVerdict, PluginScore, Rejection, Sampling
from kubesched.explain.target import (
    ExplainError,
    check_pending,
    load_pod_file,
    parse_target,
    select_profile,
)

__all__ = [
    "NOT_ENABLED",
    "ExplainError",
    "Explanation",
    "GetOnly",
    "GroupReport",
    "Member",
    "NodeVerdict",
    "PermitSource",
    "PermitView",
    "PluginScore",
    "PodSource",
    "ReadOnlyError",
    "ReadOnlyHandle",
    "Reader",
    "Rejection",
    "Sampling",
    "as_json",
    "build_snapshot",
    "check_pending",
    "explain_live",
    "explain_pod",
    "load_pod_file",
    "parse_target",
    "select_profile",
    "summary",
    "table",
    "to_dict",
]
