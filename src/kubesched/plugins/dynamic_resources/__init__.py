"""DynamicResources: devices from ResourceSlices for the pods' ResourceClaims and for the
extended resources DeviceClasses back (see `plugin`), over the scheduler's shared DRA
manager (`Handle.shared_dra_manager()`) and the DRA library (`kubesched.dra`)."""

from kubesched.plugins.dynamic_resources.plugin import DynamicResources

__all__ = ["DynamicResources"]
