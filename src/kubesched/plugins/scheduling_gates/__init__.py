"""PreEnqueue: holds pods with `spec.schedulingGates` (upstream `schedulinggates`)."""

from kubesched.plugins.scheduling_gates.plugin import SchedulingGates

__all__ = ["SchedulingGates"]
