"""The end-of-run check that the watch and the API server agree on where each pod went."""

from __future__ import annotations

from kubesched.bench.checks import _seen_otherwise


def test_a_burst_run_needs_the_watch_to_have_seen_every_binding() -> None:
    assert not _seen_otherwise("node-1", "node-1", expected=10)
    assert _seen_otherwise("node-2", "node-1", expected=10)
    assert _seen_otherwise("", "node-1", expected=10)
    assert _seen_otherwise(None, "node-1", expected=10)


def test_a_steady_state_run_may_bind_pods_after_the_watch_stopped() -> None:
    # The steady-state loop ends with pods still pending and the scheduler at work: pods
    # seen pending, or not seen at all, may be bound by the time the checks list them.
    assert not _seen_otherwise("", "node-1", expected=None)
    assert not _seen_otherwise(None, "node-1", expected=None)
    assert not _seen_otherwise("node-1", "node-1", expected=None)
    assert _seen_otherwise("node-2", "node-1", expected=None)
