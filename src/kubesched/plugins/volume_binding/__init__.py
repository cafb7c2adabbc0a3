"""VolumeBinding: PersistentVolumeClaims decide where a pod may go and are bound first."""

from kubesched.plugins.volume_binding.plugin import VolumeBinding

__all__ = ["VolumeBinding"]
