"""DeviceClasses and DeviceTaintRules (`resource.k8s.io/v1`, and v1alpha3 for the rules) as
the DRA library reads them; slices and devices are in `kubesched.model.dra`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kubesched.model.dra import (
    DeviceConfiguration,
    DeviceSelector,
    DeviceTaint,
    metadata,
    read_taint,
    selectors,
)


@dataclass(frozen=True, slots=True, eq=False)
class DeviceClass:
    name: str
    resource_version: str = ""
    creation_timestamp: str = ""
    selectors: tuple[DeviceSelector, ...] = ()
    config: tuple[DeviceConfiguration, ...] = ()
    extended_resource_name: str | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> DeviceClass:
        reader, meta = metadata("DeviceClass", obj)
        name = meta.get("name") or ""
        spec = reader.mapping(obj.get("spec"), "spec")
        config = []
        for i, item in enumerate(reader.items(spec.get("config"), "spec.config")):
            entry = dict(reader.mapping(item, f"spec.config[{i}]"))
            config.append(DeviceConfiguration(entry))
        return cls(
            name=name,
            resource_version=meta.get("resourceVersion") or "",
            creation_timestamp=meta.get("creationTimestamp") or "",
            selectors=selectors(reader, spec.get("selectors"), "spec.selectors"),
            config=tuple(config),
            extended_resource_name=reader.optional_string(
                spec.get("extendedResourceName"), "spec.extendedResourceName"
            ),
        )


@dataclass(frozen=True, slots=True)
class DeviceTaintRule:
    """A DeviceTaintRule: its taint is added to every device its selector names (None in a
    selector field matches any; a rule without a selector matches no device)."""

    name: str
    taint: DeviceTaint
    has_selector: bool = True
    driver: str | None = None
    pool: str | None = None
    device: str | None = None

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> DeviceTaintRule:
        reader, meta = metadata("DeviceTaintRule", obj)
        name = meta.get("name") or ""
        spec = reader.mapping(obj.get("spec"), "spec")
        raw_selector = spec.get("deviceSelector")
        selector = reader.mapping(raw_selector, "spec.deviceSelector")
        return cls(
            name=name,
            taint=read_taint(reader, spec.get("taint"), "spec.taint"),
            has_selector=raw_selector is not None,
            driver=reader.optional_string(selector.get("driver"), "spec.deviceSelector.driver"),
            pool=reader.optional_string(selector.get("pool"), "spec.deviceSelector.pool"),
            device=reader.optional_string(selector.get("device"), "spec.deviceSelector.device"),
        )
