"""Which specs each run selects, and the specs the local cluster cannot run (with why).

The defaults run leaves out the specs of the GenericWorkload gate (its API is not served
without it); the GenericWorkload run runs only those; a run with `--feature-gates` runs every
spec whose gates it turns on, and the specs of no gate. `UNRUNNABLE` lists the specs that fail
with the real kube-scheduler too, for a reason of the local cluster (no kubelet, kwok's
node status): they are skipped in every run and listed in docs/development.md.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

GENERIC_WORKLOAD_LABEL = "FeatureGate:GenericWorkload"
OFF_BY_DEFAULT_LABEL = "Feature:OffByDefault"

UNRUNNABLE: dict[str, str] = {
    r"verify pod overhead is accounted for": (
        "no kubelet derives status.allocatable from status.capacity: the spec writes its fake "
        "extended resource example.com/beardsecond into the node's capacity only, so no node "
        "has any allocatable and its filler pod stays Pending (kube-scheduler: Timed out "
        "after 300 s, 0/3 nodes are available: 3 Insufficient example.com/beardsecond)"
    ),
    r"validates various priority Pods preempt expectedly with the async preemption": (
        "no kubelet runs the victims' preStop hook for their 80 s grace period: kwok "
        "deletes a pod at once, so the low-priority victims are gone before the spec checks "
        "that they are being deleted (kube-scheduler: pods "
        '"pod0-0-sched-preemption-low-priority" not found)'
    ),
}
"""A regular expression matching a spec's full text -> why the local cluster cannot run it
(learnt from `run --scheduler=kube-scheduler --include-unrunnable`)."""


def label_filter(*, generic_workload: bool, gates: Sequence[str] = ()) -> str:
    """Ginkgo's `--ginkgo.label-filter` of a run: with `gates` (the gates on), every spec
    that needs no gate off by default, or only gates of `gates` (the e2e framework labels a
    spec of gate X `FeatureGate:X`, and `Feature:OffByDefault` when X is off by default);
    else the GenericWorkload specs only, or (`generic_workload` false) all but those."""
    if gates:
        return f"!{OFF_BY_DEFAULT_LABEL} || FeatureGate: isSubsetOf {{{','.join(gates)}}}"
    return GENERIC_WORKLOAD_LABEL if generic_workload else f"!{GENERIC_WORKLOAD_LABEL}"


def skip_pattern(unrunnable: dict[str, str] = UNRUNNABLE) -> str:
    """Ginkgo's `--ginkgo.skip`: any of the unrunnable specs ("" when none)."""
    return "|".join(f"(?:{pattern})" for pattern in unrunnable)


def unrunnable_reason(text: str, unrunnable: dict[str, str] = UNRUNNABLE) -> str:
    """Why the local cluster cannot run the spec of full text `text` ("" if it can)."""
    for pattern, reason in unrunnable.items():
        if re.search(pattern, text):
            return reason
    return ""
