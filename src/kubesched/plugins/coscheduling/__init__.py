"""Coscheduling: gang scheduling with scheduler-plugins' PodGroup CRD
(`scheduling.x-k8s.io/v1alpha1`); see README.md."""

from kubesched.plugins.coscheduling.plugin import Coscheduling
from kubesched.plugins.coscheduling.podgroup import POD_GROUP_LABEL, PODGROUPS

__all__ = ["PODGROUPS", "POD_GROUP_LABEL", "Coscheduling"]
