"""QueueSort: higher priority first, then older (upstream `queuesort`)."""

from kubesched.plugins.priority_sort.plugin import PrioritySort

__all__ = ["PrioritySort"]
