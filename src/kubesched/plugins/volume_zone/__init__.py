"""VolumeZone: pods with zonal PVs go to nodes of that zone (and region)."""

from kubesched.plugins.volume_zone.plugin import VolumeZone

__all__ = ["VolumeZone"]
