"""CapacityScheduling: elastic quotas per namespace with scheduler-plugins' ElasticQuota CRD
(`scheduling.x-k8s.io/v1alpha1`); see README.md."""

from kubesched.plugins.capacity_scheduling.plugin import CapacityScheduling
from kubesched.plugins.capacity_scheduling.quota import ELASTIC_QUOTAS

__all__ = ["ELASTIC_QUOTAS", "CapacityScheduling"]
