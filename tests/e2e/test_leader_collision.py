"""The collision guard end to end: kubesched refuses, quickly and with a one-line reason, a
Lease that would make it hang behind (or fight) another holder, and accepts its own replicas.

The guides' mistake is a second scheduler configured with the Lease
kube-system/kube-scheduler that blocks forever at "attempting to acquire leader lease
kube-system/kube-scheduler..." while the real kube-scheduler holds it.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.harness import ApiClient
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.test_leader_election import (
    DEFAULT_LEASE,
    identity_of,
    lease_spec,
    replica_args,
    wait_holder,
)

REFUSAL_SECONDS = 15.0
"""Start-up (imports, connecting) plus the check; far below any lease timing that a hang
would show as."""


def refusal(proc: Any) -> tuple[int, str, float]:
    """Wait for a process that must refuse to start: (exit code, its `kubesched:` line, seconds)."""
    started = time.monotonic()
    code = proc.wait(timeout=REFUSAL_SECONDS)
    took = time.monotonic() - started
    lines = [line for line in proc.log().splitlines() if line.startswith("kubesched: ")]
    assert len(lines) == 1, proc.log()
    return code, lines[0], took


def default_lease_untouched(api: ApiClient, before: dict[str, Any]) -> None:
    lease = api.get("Lease", DEFAULT_LEASE[1], namespace=DEFAULT_LEASE[0])
    assert lease["spec"]["holderIdentity"] == before["spec"]["holderIdentity"]
    assert lease["spec"].get("leaseTransitions") == before["spec"].get("leaseTransitions")
    assert lease["spec"]["leaseDurationSeconds"] == before["spec"]["leaseDurationSeconds"]
    assert "kubesched.io/scheduler-names" not in (lease["metadata"].get("annotations") or {})
    assert "kubesched.io/lease" not in (lease["metadata"].get("labels") or {})


@pytest.mark.parametrize(
    "lease_flags",
    [
        (
            "--leader-elect-resource-namespace=kube-system",
            "--leader-elect-resource-name=kube-scheduler",
        ),
        (
            "--leader-election-resource-namespace=kube-system",
            "--leader-election-resource-name=kube-scheduler",
        ),
        ("--lock-object-namespace=kube-system", "--lock-object-name=kube-scheduler"),
    ],
    ids=["leader-elect", "leader-election", "lock-object"],
)
def test_refuses_the_default_schedulers_lease(
    kubesched: StartKubesched, api: ApiClient, lease_flags: tuple[str, ...]
) -> None:
    before = api.get("Lease", DEFAULT_LEASE[1], namespace=DEFAULT_LEASE[0])
    proc = kubesched(
        "--scheduler-name=my-custom-scheduler", "--leader-elect=true", *lease_flags, ready=False
    )
    code, line, took = refusal(proc)
    assert code == 1
    assert took < REFUSAL_SECONDS
    assert "kube-system/kube-scheduler" in line
    assert "--leader-elect-resource-name" in line
    assert "my-custom-scheduler" in line  # the suggested Lease name
    assert "attempting to acquire leader lease kube-system/kube-scheduler" in line  # the why
    assert '"starting leader election"' not in proc.log()
    default_lease_untouched(api, before)


def test_refuses_to_replace_a_live_kube_scheduler(
    kubesched: StartKubesched, api: ApiClient
) -> None:
    """Serving default-scheduler on kube-scheduler's own Lease replaces kube-scheduler: only
    once it is gone. While it renews its Lease, kubesched refuses instead of waiting."""
    before = api.get("Lease", DEFAULT_LEASE[1], namespace=DEFAULT_LEASE[0])
    proc = kubesched(
        "--scheduler-name=default-scheduler",
        "--leader-elect-resource-namespace=kube-system",
        "--leader-elect-resource-name=kube-scheduler",
        ready=False,
    )
    code, line, _ = refusal(proc)
    assert code == 1
    assert "kube-system/kube-scheduler" in line
    assert before["spec"]["holderIdentity"] in line
    assert "stop the default scheduler first" in line
    assert "--leader-elect-resource-name" in line
    default_lease_untouched(api, before)


def test_different_schedulers_on_one_lease_are_refused_replicas_accepted(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    lease = "shared-lease"
    alpha = kubesched(*replica_args("alpha", namespace, lease), name="alpha")
    alpha_id = wait_holder(api, namespace, lease, [identity_of(alpha)])

    # Another deployment, serving other pods, configured with the same Lease: refused.
    beta = kubesched(*replica_args("beta", namespace, lease), ready=False, name="beta")
    code, line, _ = refusal(beta)
    assert code == 1
    assert f"{namespace}/{lease}" in line
    assert alpha_id in line
    assert "alpha" in line
    assert "beta" in line
    assert "--leader-elect-resource-name" in line

    # A replica of the same scheduler: accepted, as a standby.
    replica = kubesched(*replica_args("alpha", namespace, lease), name="alpha-replica")
    replica.wait_log(f'"waiting for leader lease" lease="{namespace}/{lease}" holder="{alpha_id}"')
    assert replica.running()
    assert lease_spec(api, namespace, lease)["holderIdentity"] == alpha_id
    assert alpha.running()


def test_refuses_a_lease_held_live_by_another_component(
    kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    now = datetime.now(UTC)
    api.create(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "busy", "namespace": namespace},
            "spec": {
                "holderIdentity": "some-controller",
                "leaseDurationSeconds": 600,
                "renewTime": now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                "acquireTime": (now - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            },
        }
    )
    proc = kubesched(*replica_args("gamma", namespace, "busy"), ready=False)
    code, line, _ = refusal(proc)
    assert code == 1
    assert "some-controller" in line
    assert "not kubesched" in line
    assert lease_spec(api, namespace, "busy")["holderIdentity"] == "some-controller"
