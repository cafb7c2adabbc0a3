"""CycleState: per-scheduling-cycle scratch space plugins share between extension points.

PreFilter/PreScore compute per-pod data once and write it here; Filter/Score read it for
every node. Keys are typed `StateKey` objects, so reads need no casts:

    _KEY: StateKey[_Requests] = StateKey("PreFilterNodeResourcesFit")
    state.write(_KEY, requests)          # in pre_filter
    requests = state.read(_KEY)          # in filter; KeyError if pre_filter did not run

A state is used by one cycle on one event loop; it is not thread-safe.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

T = TypeVar("T")


class StateKey(Generic[T]):
    """A typed key; two keys are the same key only if they are the same object."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class CycleState:
    """Data written by plugins during one scheduling cycle, plus the framework's skip sets."""

    __slots__ = (
        "_data",
        "pod_group_cycle",
        "record_plugin_metrics",
        "skip_filter_plugins",
        "skip_pre_bind_plugins",
        "skip_score_plugins",
    )

    def __init__(self) -> None:
        self._data: dict[StateKey[Any], Any] = {}
        self.record_plugin_metrics = False
        """This cycle's plugin calls are timed (upstream `ShouldRecordPluginMetrics`; the
        scheduler samples 10 % of its cycles)."""
        self.skip_filter_plugins: frozenset[str] = frozenset()
        """PreFilter plugins that returned Skip: their Filter is not called this cycle."""
        self.skip_score_plugins: frozenset[str] = frozenset()
        """PreScore plugins that returned Skip: their Score is not called this cycle."""
        self.skip_pre_bind_plugins: frozenset[str] = frozenset()
        """PreBind plugins whose PreBindPreFlight returned Skip: their PreBind is not called."""
        self.pod_group_cycle: CycleState | None = None
        """The state shared by every member of a pod-group scheduling cycle, None outside
        one and in the binding cycle (upstream `GetPodGroupSchedulingCycle`)."""

    def write(self, key: StateKey[T], value: T) -> None:
        self._data[key] = value

    def read(self, key: StateKey[T]) -> T:
        """The value written under `key`; KeyError names the key if nothing was written."""
        try:
            return self._data[key]  # type: ignore[no-any-return] # hot path: no cast() call
        except KeyError:
            raise KeyError(f"{key.name!r} not found in the cycle state") from None

    def get(self, key: StateKey[T]) -> T | None:
        """The value written under `key`, or None."""
        return self._data.get(key)  # Any: no cast() call on the hot path

    def delete(self, key: StateKey[Any]) -> None:
        self._data.pop(key, None)

    def clone(self) -> CycleState:
        """A copy for what-if evaluation; values with a `clone()` method are cloned."""
        copy = CycleState()
        # `getattr`, not a runtime-checkable isinstance (which costs ~50 us per value and
        # ran once per value per node in preemption's dry runs).
        data = {}
        for key, value in self._data.items():
            clone = getattr(value, "clone", None)
            data[key] = clone() if callable(clone) else value
        copy._data = data
        copy.skip_filter_plugins = self.skip_filter_plugins
        copy.skip_score_plugins = self.skip_score_plugins
        copy.skip_pre_bind_plugins = self.skip_pre_bind_plugins
        copy.record_plugin_metrics = self.record_plugin_metrics
        copy.pod_group_cycle = self.pod_group_cycle
        return copy
