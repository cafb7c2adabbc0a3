"""The election loop on virtual time: leading, failover, release, loss, fencing, events."""

from __future__ import annotations

import asyncio
import logging

import pytest

from kubesched.framework.logkv import pairs_of
from kubesched.leaderelection import (
    JITTER_FACTOR,
    ElectionConfig,
    StoppedLeading,
    StopReason,
)
from kubesched.server.logs_quote import render_message
from tests.unit.leaderelection.conftest import FakeMetrics, Harness

LD, RD, RP = 15.0, 10.0, 2.0


def test_a_single_replica_leads_and_stops_cleanly(h: Harness, fake_metrics: FakeMetrics) -> None:
    stopped: list[StoppedLeading] = []
    started = asyncio.Event()
    a = h.elector("a", metrics=fake_metrics)

    async def lead() -> None:
        started.set()
        await asyncio.Event().wait()

    async def main() -> StoppedLeading:
        task = asyncio.create_task(
            a.run(on_started_leading=lead, on_stopped_leading=stopped.append)
        )
        await started.wait()
        assert a.is_leader()
        assert not a.fenced()
        assert a.get_leader() == "a"
        await asyncio.sleep(30)
        assert a.is_leader()
        a.stop()
        return await task

    result = h.run(main())
    assert result.reason is StopReason.STOPPED
    assert result.exit_code == 0
    assert result.was_leader
    assert result.released
    assert stopped == [result]
    assert not a.is_leader()
    assert a.fenced()
    assert fake_metrics.leading == [True, False]
    assert h.events == [
        ("a", "LeaderElection", "a became leader"),
        ("a", "LeaderElection", "a stopped leading"),
    ]
    assert h.store.spec()["holderIdentity"] == ""


def test_two_replicas_exactly_one_leads(h: Harness) -> None:
    a, b = h.elector("a", seed=1), h.elector("b", seed=2)

    async def main() -> set[str]:
        tasks = [asyncio.create_task(e.run()) for e in (a, b)]
        leaders = set()
        for _ in range(600):
            await asyncio.sleep(0.1)
            current = [e.identity for e in (a, b) if e.is_leader()]
            assert len(current) == 1
            leaders.add(current[0])
        for task in tasks:
            task.cancel()
        return leaders

    assert len(h.run(main())) == 1


@pytest.mark.parametrize(("skew_a", "skew_b"), [(0, 0), (-3600, 3600), (86400, -5)])
def test_failover_after_the_leader_stops_renewing(h: Harness, skew_a: int, skew_b: int) -> None:
    """Wall-clock skew changes nothing: only our monotonic clock and observed changes count."""
    a = h.elector("a", seed=3, skew=skew_a)
    b = h.elector("b", seed=4, skew=skew_b)

    async def main() -> tuple[float, float, float, StoppedLeading]:
        task_a = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        task_b = asyncio.create_task(b.run())
        await asyncio.sleep(20.3)
        h.api("a").partitioned = True  # a is cut off: it can neither renew nor release
        last_renew = a.last_renew_monotonic()
        assert last_renew is not None
        fenced_at = await h.wait_until(a.fenced)
        took_over = await h.wait_until(b.is_leader)
        result_a = await task_a
        task_b.cancel()
        return last_renew, fenced_at, took_over, result_a

    last_renew, fenced_at, took_over, result_a = h.run(main())
    assert fenced_at == pytest.approx(last_renew + RD, abs=0.02)
    assert took_over - last_renew <= LD + JITTER_FACTOR * RP + RP
    assert took_over > fenced_at
    assert result_a.reason is StopReason.RENEW_DEADLINE_EXCEEDED
    assert result_a.exit_code == 1
    assert "could not renew the lease ns/lease within the renew deadline (10s" in result_a.message
    assert not result_a.released
    assert h.store.spec()["leaseTransitions"] == 1


def test_release_on_stop_lets_the_standby_lead_within_a_jittered_retry(h: Harness) -> None:
    order: list[str] = []
    a = h.elector("a", seed=5)
    b = h.elector("b", seed=6)

    async def lead() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            order.append("leading task cancelled")
            raise

    async def before_release() -> None:
        order.append(f"before_release holder={h.store.holder()} fenced={a.fenced()}")
        await asyncio.sleep(3)  # in-flight bindings finish
        order.append("bindings done")

    async def main() -> tuple[StoppedLeading, float]:
        task_a = asyncio.create_task(a.run(on_started_leading=lead, before_release=before_release))
        await h.wait_until(a.is_leader)
        task_b = asyncio.create_task(b.run())
        await asyncio.sleep(10)
        a.stop()
        result = await task_a
        released_at = asyncio.get_running_loop().time()
        took_over = await h.wait_until(b.is_leader)
        task_b.cancel()
        return result, took_over - released_at

    result, delay = h.run(main())
    assert order == [
        "before_release holder=a fenced=True",
        "bindings done",
        "leading task cancelled",
    ]
    assert result.released
    assert result.message == "asked to stop; released the lease ns/lease"
    assert delay < JITTER_FACTOR * RP + RP
    assert h.store.spec()["leaseTransitions"] == 1


def test_cancelling_run_releases_then_reraises(h: Harness) -> None:
    stopped: list[StoppedLeading] = []
    a = h.elector("a")

    async def main() -> None:
        task = asyncio.create_task(a.run(on_stopped_leading=stopped.append))
        await h.wait_until(a.is_leader)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    h.run(main())
    assert h.store.holder() == ""
    assert [s.reason for s in stopped] == [StopReason.STOPPED]
    assert stopped[0].released


def test_a_standby_asked_to_stop_writes_nothing(h: Harness) -> None:
    h.foreign("kube-scheduler-x")
    stopped: list[StoppedLeading] = []
    a = h.elector("a")

    async def main() -> StoppedLeading:
        task = asyncio.create_task(a.run(on_stopped_leading=stopped.append))
        await asyncio.sleep(5)
        a.stop()
        return await task

    result = h.run(main())
    assert result.reason is StopReason.STOPPED
    assert not result.was_leader
    assert result.message == "asked to stop while waiting for the lease"
    assert result.holder == "kube-scheduler-x"
    assert stopped == [result]
    assert h.store.writes == []
    assert h.events == []


def test_stop_before_run_returns_at_once(h: Harness) -> None:
    a = h.elector("a")
    a.stop()
    result = h.run(a.run())
    assert result.reason is StopReason.STOPPED
    assert h.store.writes == []


def test_run_twice_is_refused(h: Harness) -> None:
    a = h.elector("a")

    async def main() -> None:
        a.stop()
        await a.run()
        with pytest.raises(RuntimeError, match="only once"):
            await a.run()

    h.run(main())


def test_a_lease_taken_by_another_holder_stops_leading_at_once(h: Harness) -> None:
    a = h.elector("a")

    async def main() -> tuple[StoppedLeading, float]:
        task = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        h.foreign("intruder")
        taken_at = asyncio.get_running_loop().time()
        result = await task
        return result, asyncio.get_running_loop().time() - taken_at

    result, delay = h.run(main())
    assert result.reason is StopReason.LEASE_TAKEN
    assert result.holder == "intruder"
    assert result.exit_code == 1
    assert "now held by intruder" in result.message
    assert not result.released
    assert delay <= RP + 0.01
    assert h.store.holder() == "intruder"


def test_a_hanging_renewal_times_out_and_the_slow_path_renews(h: Harness) -> None:
    a = h.elector("a")

    async def main() -> tuple[float, float | None, bool]:
        task = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        h.api("a").hang_next = 1  # the fast-path renewal at t=2 hangs
        fenced_meanwhile = False

        def renewed() -> bool:
            nonlocal fenced_meanwhile
            fenced_meanwhile |= a.fenced()
            last = a.last_renew_monotonic()
            return last is not None and last > 0

        renewed_at = await h.wait_until(renewed)
        task.cancel()
        return renewed_at, a.last_renew_monotonic(), fenced_meanwhile

    renewed_at, attempt_start, fenced_meanwhile = h.run(main())
    assert renewed_at == pytest.approx(RP + 5.0, abs=0.02)  # after the 5 s request timeout
    assert attempt_start == RP  # fencing counts from the start of the attempt (safe side)
    assert not fenced_meanwhile
    assert set(h.api("a").timeouts) == {5.0}
    assert [verb for verb, _ in h.api("a").calls[:4]] == ["get", "post", "put", "get"]


def test_fencing_turns_on_renew_deadline_after_the_last_renewal(h: Harness) -> None:
    a = h.elector("a")

    async def main() -> tuple[bool, bool]:
        task = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        await asyncio.sleep(4.5)
        h.api("a").partitioned = True
        last = a.last_renew_monotonic()
        assert last is not None
        loop = asyncio.get_running_loop()
        await asyncio.sleep(last + RD - loop.time() - 0.01)
        before = a.fenced()
        await asyncio.sleep(0.02)
        after = a.fenced()
        await task
        return before, after

    assert h.run(main()) == (False, True)


def test_lease_transitions_count_every_change_of_holder(h: Harness) -> None:
    async def main() -> None:
        for identity in ("a", "b", "c"):
            elector = h.elector(identity)
            task = asyncio.create_task(elector.run())
            await h.wait_until(elector.is_leader)
            elector.stop()
            await task

    h.run(main())
    assert h.store.spec()["leaseTransitions"] == 2


def test_new_leaders_are_reported(h: Harness) -> None:
    seen: list[str] = []
    a, b = h.elector("a"), h.elector("b")

    async def main() -> None:
        task_a = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        task_b = asyncio.create_task(b.run(on_new_leader=seen.append))
        await asyncio.sleep(5)
        a.stop()
        await task_a
        await h.wait_until(b.is_leader)
        task_b.cancel()

    h.run(main())
    assert seen == ["a", "b"]


def test_a_failing_leading_task_ends_leadership_and_releases(h: Harness) -> None:
    a = h.elector("a")
    boom = RuntimeError("scheduler crashed")

    async def lead() -> None:
        await asyncio.sleep(7)
        raise boom

    result = h.run(a.run(on_started_leading=lead))
    assert result.reason is StopReason.LEADING_TASK_FAILED
    assert result.error is boom
    assert result.exit_code == 1
    assert result.released


def test_health_check_flags_a_leader_that_stopped_renewing(h: Harness) -> None:
    a, b = h.elector("a"), h.elector("b")

    async def main() -> tuple[tuple[str | None, str | None], str | None]:
        tasks = [asyncio.create_task(a.run())]
        await h.wait_until(a.is_leader)
        tasks.append(asyncio.create_task(b.run()))
        await asyncio.sleep(1)
        healthy = (a.check(), b.check())
        assert a._candidate.last_renew_start is not None
        a._candidate.last_renew_start -= LD + 21  # a wedged renew loop
        stale = a.check()
        for task in tasks:
            task.cancel()
        return healthy, stale

    healthy, stale = h.run(main())
    assert healthy == (None, None)
    assert stale == "failed election to renew leadership on lease ns/lease"


def test_invalid_timings_are_refused_before_running(h: Harness) -> None:
    with pytest.raises(ValueError, match="renewDeadline"):
        h.elector("a", config=ElectionConfig(lease_duration=10, renew_deadline=10))


def test_a_standby_says_who_holds_the_lease_at_a_sensible_rate(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kubesched.leaderelection")
    a = h.elector("a")
    b = h.elector("b", standby_log_interval=30)

    async def main() -> None:
        task_a = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        await asyncio.sleep(1.5)
        task_b = asyncio.create_task(b.run())
        await asyncio.sleep(95)
        a.stop()
        await task_a
        await h.wait_until(b.is_leader)
        task_b.cancel()

    h.run(main())
    waiting = [render_message(r) for r in caplog.records if "waiting for leader lease" in r.message]
    # at start, then whenever 30 s have passed (attempts are 2-4.4 s apart)
    assert 3 <= len(waiting) <= 4
    line = waiting[0]
    assert line.startswith('"waiting for leader lease" lease="ns/lease" holder="a" renewed="')
    assert 's ago" expires="in ' in line
    assert 'schedulers="my-scheduler"' in line
    assert "attempting to acquire" not in caplog.text
    assert '"starting leader election" lease="ns/lease" identity="b"' in caplog.text
    assert (
        '"successfully acquired lease" lease="ns/lease" identity="b" transitions=1' in caplog.text
    )


def test_a_lost_lease_is_logged_as_an_error_with_the_reason(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kubesched.leaderelection")
    a = h.elector("a")

    async def main() -> StoppedLeading:
        task = asyncio.create_task(a.run())
        await h.wait_until(a.is_leader)
        h.api("a").partitioned = True
        return await task

    h.run(main())
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1
    assert render_message(errors[0]).startswith(
        '"lost leader lease; stopping so a restart rebuilds state" lease="ns/lease" '
        'identity="a" reason="renew deadline exceeded"'
    )


def test_a_standby_logs_at_once_when_the_holder_changes(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kubesched.leaderelection")
    a, b, c = h.elector("a"), h.elector("b", seed=1), h.elector("c", seed=2)

    async def main() -> str:
        tasks = [asyncio.create_task(a.run())]
        await h.wait_until(a.is_leader)
        tasks += [asyncio.create_task(e.run()) for e in (b, c)]
        await asyncio.sleep(3)
        h.api("a").partitioned = True
        await h.wait_until(lambda: b.is_leader() or c.is_leader())
        await asyncio.sleep(5)  # far less than the 30 s interval
        for task in tasks:
            task.cancel()
        return "b" if b.is_leader() else "c"

    leader = h.run(main())
    waiting = [pairs_of(r) for r in caplog.records if "waiting for leader lease" in r.msg]
    holders = [pairs["holder"] for pairs in waiting if pairs is not None]
    assert len(holders) == len(waiting)
    assert holders == ["a", "a", leader]  # both standbys at start; the loser on the change


def test_the_fence_deadline_is_renew_deadline_after_the_last_renewal(h: Harness) -> None:
    """What the writer process holds its writes to: the same moment `fenced()` turns."""
    started = asyncio.Event()
    a = h.elector("a")

    async def lead() -> None:
        started.set()
        await asyncio.Event().wait()

    async def main() -> tuple[float, float, float | None]:
        assert a.fence_deadline() == 0.0  # not leading yet
        task = asyncio.create_task(a.run(on_started_leading=lead))
        await started.wait()
        await asyncio.sleep(7)
        deadline, now, last = a.fence_deadline(), asyncio.get_running_loop().time(), None
        last = a.last_renew_monotonic()
        a.stop()
        await task
        return deadline, now, last

    deadline, now, last = h.run(main())
    assert last is not None
    assert deadline == last + RD
    assert deadline > now
    assert a.fence_deadline() == 0.0  # released
