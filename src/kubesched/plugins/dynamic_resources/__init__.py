"""DynamicResources: devices from ResourceSlices for the pods' ResourceClaims and for the
extended resources DeviceClasses back (see `plugin`); it also gives the resource scorers
their device counts (`plugins.helper.dra_devices`)."""

from kubesched.plugins.dynamic_resources.device_counts import counts_source
from kubesched.plugins.dynamic_resources.plugin import DynamicResources
from kubesched.plugins.helper import dra_devices

dra_devices.provide(counts_source)

__all__ = ["DynamicResources"]
