"""GangScheduling: kube-scheduler's native all-or-nothing scheduling of `scheduling.k8s.io`
PodGroups (the `GenericWorkload` feature gate); see README.md."""

from kubesched.plugins.gang_scheduling.plugin import NAME, GangScheduling

__all__ = ["NAME", "GangScheduling"]
