"""The DRA CEL environment for device selectors, compiled once per expression."""

from kubesched.dra.cel.environment import (
    SELECTOR_MAX_COST,
    CelCache,
    DeviceSelectorError,
    Selector,
    compile_selector,
    device_variable,
    enhance_runtime_error,
)

__all__ = [
    "SELECTOR_MAX_COST",
    "CelCache",
    "DeviceSelectorError",
    "Selector",
    "compile_selector",
    "device_variable",
    "enhance_runtime_error",
]
