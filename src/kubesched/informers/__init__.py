"""List + watch of Nodes and Pods into slim objects, with handlers called on every change."""

from kubesched.informers.reflector import (
    EventHandler,
    IgnoreEvents,
    Reflector,
    ReflectorSettings,
)

__all__ = ["EventHandler", "IgnoreEvents", "Reflector", "ReflectorSettings"]
