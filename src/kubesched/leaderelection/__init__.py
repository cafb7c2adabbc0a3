"""Leader election on a `coordination.k8s.io/v1` Lease with client-go's semantics.

Typical use by the app (see `LeaderElector.run` for the callbacks)::

    check_lease_collision(api, namespace=ns, name=name, scheduler_names=names)
    elector = new_elector(api, settings=config.leader_election, scheduler_names=names,
                          before_release=binder.drain, event_sink=record_lease_event)
    result = await elector.run(on_started_leading=scheduler.run)
    sys.exit(result.exit_code)

`elector.fenced()` is the fence: the scheduling client asks it right before it writes any
request to the socket (`KubeClient(write_fence=...)`), the binder and preemption before they
start.
"""

from kubesched.leaderelection.announce import EVENT_REASON, EventSink, OnNewLeader
from kubesched.leaderelection.clock import Clock, LoopClock, jittered
from kubesched.leaderelection.collision import (
    DEFAULT_SCHEDULER_LEASE,
    LeaseCollisionError,
    check_lease_collision,
    read_lease,
)
from kubesched.leaderelection.elector import (
    HEALTH_TOLERANCE,
    BeforeRelease,
    LeaderElector,
    OnStartedLeading,
    OnStoppedLeading,
)
from kubesched.leaderelection.factory import new_elector
from kubesched.leaderelection.lock import LeaseLock, new_identity
from kubesched.leaderelection.outcome import (
    ElectionMetrics,
    Leadership,
    StoppedLeading,
    StopReason,
)
from kubesched.leaderelection.record import (
    LEASE_LABEL,
    LEASE_LABEL_SELECTOR,
    SCHEDULER_NAMES_ANNOTATION,
    LeaseRecord,
    lease_path,
    leases_path,
)
from kubesched.leaderelection.settings import JITTER_FACTOR, ElectionConfig, ElectionConfigError

__all__ = [
    "DEFAULT_SCHEDULER_LEASE",
    "EVENT_REASON",
    "HEALTH_TOLERANCE",
    "JITTER_FACTOR",
    "LEASE_LABEL",
    "LEASE_LABEL_SELECTOR",
    "SCHEDULER_NAMES_ANNOTATION",
    "BeforeRelease",
    "Clock",
    "ElectionConfig",
    "ElectionConfigError",
    "ElectionMetrics",
    "EventSink",
    "LeaderElector",
    "Leadership",
    "LeaseCollisionError",
    "LeaseLock",
    "LeaseRecord",
    "LoopClock",
    "OnNewLeader",
    "OnStartedLeading",
    "OnStoppedLeading",
    "StopReason",
    "StoppedLeading",
    "check_lease_collision",
    "jittered",
    "lease_path",
    "leases_path",
    "new_elector",
    "new_identity",
    "read_lease",
]
