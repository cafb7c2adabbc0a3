"""PostFilter: picks victims on one node so that a pending pod fits
(upstream `defaultpreemption`)."""

from kubesched.plugins.default_preemption.plugin import DefaultPreemption

__all__ = ["DefaultPreemption"]
