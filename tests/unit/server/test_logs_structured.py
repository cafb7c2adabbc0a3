"""Structured log calls (`extra=kv(...)`) write the text the klog-style templates they
replaced wrote, byte for byte. Each expectation is the old template filled in by hand
with the same values (the template is quoted above it)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from kubesched.framework.logkv import Bare, kv
from kubesched.server.logs import KlogFormatter


def line(message: str, pairs: dict[str, object], *, level: int = logging.INFO) -> str:
    record = logging.LogRecord("kubesched", level, "/x/app.py", 7, message, (), None)
    record.__dict__.update(pairs)
    return KlogFormatter().format(record).split("] ", 1)[1]


class Forbidden(Exception):
    pass


CALLS = [
    # '"connected" server="%s" version="%s"'
    (
        ("connected", kv(server="https://127.0.0.1:6443", version="v1.37.2")),
        '"connected" server="https://127.0.0.1:6443" version="v1.37.2"',
    ),
    # the same, when the server reports no gitVersion
    (
        ("connected", kv(server="https://127.0.0.1:6443", version=None)),
        '"connected" server="https://127.0.0.1:6443" version="None"',
    ),
    # '"serving securely" address="%s" port=%d'
    (
        ("serving securely", kv(address="0.0.0.0", port=10259)),
        '"serving securely" address="0.0.0.0" port=10259',
    ),
    # '"caches synced" nodes=%d pods=%d' (numpy counts as a columnar store gives them)
    (
        ("caches synced", kv(nodes=np.int64(5000), pods=np.intp(0))),
        '"caches synced" nodes=5000 pods=0',
    ),
    # '"stopped while waiting for caches to sync"'
    (
        ("stopped while waiting for caches to sync", kv()),
        '"stopped while waiting for caches to sync"',
    ),
    # '"profile" scheduler="%s" plugins="%s"' with a list of plugin names
    (
        ("profile", kv(scheduler="my-scheduler", plugins=["PrioritySort", "NodeName"])),
        '"profile" scheduler="my-scheduler" plugins="[\'PrioritySort\', \'NodeName\']"',
    ),
    # '"starting leader election" lease="%s" identity="%s" schedulers="%s" '
    # "leaseDuration=%gs renewDeadline=%gs retryPeriod=%gs"
    (
        (
            "starting leader election",
            kv(
                lease="ns/my-scheduler",
                identity="host_1a2b",
                schedulers="a,b",
                leaseDuration=Bare(f"{15.0:g}s"),
                renewDeadline=Bare(f"{10.0:g}s"),
                retryPeriod=Bare(f"{0.5:g}s"),
            ),
        ),
        (
            '"starting leader election" lease="ns/my-scheduler" identity="host_1a2b" '
            'schedulers="a,b" leaseDuration=15s renewDeadline=10s retryPeriod=0.5s'
        ),
    ),
    # '"Got a Retry-After response" delay="%gs" attempt=%d code=%d verb="%s" path="%s"'
    (
        (
            "Got a Retry-After response",
            kv(delay=f"{1.0:g}s", attempt=1, code=429, verb="POST", path="/api/v1/x"),
        ),
        '"Got a Retry-After response" delay="1s" attempt=1 code=429 verb="POST" path="/api/v1/x"',
    ),
    # '"events dropped" count=%d reasons="%s" since="%s" total=%d'
    (
        (
            "events dropped",
            kv(count=3, reasons="FailedScheduling=3", since="start", total=np.int32(7)),
        ),
        '"events dropped" count=3 reasons="FailedScheduling=3" since="start" total=7',
    ),
    # '"skipping malformed object" path="%s" object="%s/%s" err="%s"'
    (
        (
            "skipping malformed object",
            kv(path="/api/v1/pods", object="ns/p\n", err=ValueError('bad "x"')),
        ),
        '"skipping malformed object" path="/api/v1/pods" object="ns/p\\n" err="bad \\"x\\""',
    ),
    # '"waiting for leader lease" lease="%s" holder="%s" renewed="%s" expires="%s" '
    # 'schedulers="%s" transitions=%d' with a hostile holder
    (
        (
            "waiting for leader lease",
            kv(
                lease="ns/l",
                holder="x\x1b[2J\\",
                renewed="3s ago",
                expires="in 12s",
                schedulers="s",
                transitions=2,
            ),
        ),
        (
            '"waiting for leader lease" lease="ns/l" holder="x\\x1b[2J\\\\" renewed="3s ago" '
            'expires="in 12s" schedulers="s" transitions=2'
        ),
    ),
    # '"Ignoring a %s that does not parse" object="%s" err="%s"'
    (
        (
            "Ignoring a ResourceSlice that does not parse",
            kv(object="slice-1", err=Forbidden("no")),
        ),
        '"Ignoring a ResourceSlice that does not parse" object="slice-1" err="no"',
    ),
    # '"Unable to schedule pod" pod="%s" reason="%s" err="%s"'
    (
        (
            "Unable to schedule pod",
            kv(
                pod="ns/p",
                reason="Unschedulable",
                err="0/3 nodes are available: 3 Insufficient cpu.",
            ),
        ),
        (
            '"Unable to schedule pod" pod="ns/p" reason="Unschedulable" '
            'err="0/3 nodes are available: 3 Insufficient cpu."'
        ),
    ),
]


@pytest.mark.parametrize(("call", "old"), CALLS, ids=[call[0][0] for call in CALLS])
def test_a_structured_call_writes_what_its_template_wrote(
    call: tuple[str, dict[str, object]], old: str
) -> None:
    message, pairs = call
    assert line(message, pairs) == old


def test_the_extra_keys_follow_the_pairs() -> None:
    pairs = {**kv(err="boom"), "plugin": "Boom", "point": "Filter"}
    assert line("failed", pairs) == '"failed" err="boom" plugin="Boom" point="Filter"'


def test_numbers_and_booleans_are_bare() -> None:
    pairs = kv(n=np.int64(-3), ratio=np.float64(0.25), big=1e21, ok=True, no=np.False_)
    assert line("m", pairs) == '"m" n=-3 ratio=0.25 big=1e+21 ok=true no=false'
