"""NodeVolumeLimits: CSI attach limits per node (CSINode `allocatable.count`)."""

from kubesched.plugins.node_volume_limits.plugin import NodeVolumeLimits

__all__ = ["NodeVolumeLimits"]
