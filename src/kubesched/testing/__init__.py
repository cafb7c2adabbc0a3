"""Public helpers for plugin authors and our own tests: object builders and a fake handle."""

from kubesched.framework import RecordedPreemption
from kubesched.testing.builders import NodeBuilder, PodBuilder, make_node, make_pod
from kubesched.testing.framework import build_test_framework
from kubesched.testing.handle import (
    FakeHandle,
    RecordedEvent,
    RecordedObjectEvent,
    run_filter_plugin,
    run_score_plugin,
)

__all__ = [
    "FakeHandle",
    "NodeBuilder",
    "PodBuilder",
    "RecordedEvent",
    "RecordedObjectEvent",
    "RecordedPreemption",
    "build_test_framework",
    "make_node",
    "make_pod",
    "run_filter_plugin",
    "run_score_plugin",
]
