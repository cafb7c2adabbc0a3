"""Fixtures for the scheduling-queue tests."""

from __future__ import annotations

import pytest

from kubesched.queue import SchedulingQueue
from tests.unit.queue.queue_fakes import FakeClock, gates, priority_sort


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def queue(clock: FakeClock) -> SchedulingQueue:
    return SchedulingQueue(less=priority_sort, pre_enqueue=gates, clock=clock)
