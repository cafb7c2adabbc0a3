"""`kubesched run` collects garbage less often than CPython's defaults."""

from __future__ import annotations

import gc

from kubesched.server.gc_tuning import THRESHOLDS, tune_collector


def test_thresholds_are_set_and_collect_less_often_than_the_defaults() -> None:
    before = gc.get_threshold()
    try:
        tune_collector()
        assert gc.get_threshold() == THRESHOLDS
        assert all(mine >= default for mine, default in zip(THRESHOLDS, (700, 10, 10), strict=True))
    finally:
        gc.set_threshold(*before)
