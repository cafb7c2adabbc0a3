"""VolumeRestrictions: ReadWriteOncePod claims and inline disks that cannot be shared."""

from kubesched.plugins.volume_restrictions.plugin import VolumeRestrictions

__all__ = ["VolumeRestrictions"]
