"""`kubesched explain` of a Coscheduling gang member on the real control plane: the group
section (PodGroup, minMember, timeout, status, members, what the group lacks) and, with
`--scheduler-url`, exactly the members the running kubesched holds at Permit, read from its
secure port (`/debug/waitingpods`, refused without credentials like /metrics).

Reuses the Coscheduling fixtures of test_gang_coscheduling.py (the PodGroup CRD, the profile).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.apis.waitingpods import WAITING_PODS_PATH
from kubesched.localcluster import LocalCluster
from tests.e2e.harness import ApiClient, wait_for
from tests.e2e.test_explain import explain
from tests.e2e.test_gang_coscheduling import (
    ELECTION,
    _bound,
    _config,
    _group,
    _members,
    _nodes,
    podgroup_crd,  # noqa: F401 - the module's fixture
)

HELD = ["hold-0", "hold-1", "hold-2"]


def _explain_json(cluster: LocalCluster, *args: str) -> dict[str, Any]:
    done = explain(cluster, *args, "-o", "json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.usefixtures("podgroup_crd")
def test_explain_lists_the_members_held_at_permit(
    kubesched: Any, api: ApiClient, namespace: str, tmp_path: Path, local_cluster: LocalCluster
) -> None:
    _nodes(api, "xg-a", "xg-b")
    config = _config(tmp_path, namespace, local_cluster.kubeconfig_path)
    proc = kubesched(config, *ELECTION)
    # minMember 5: three members wait at Permit, a fourth belongs to nobody's scheduler, so
    # 4 of 5 exist and the gang never completes while the test looks at it.
    # minMember 5: three members for kubesched, one for nobody's scheduler: 4 of 5 exist.
    _group(api, namespace, "hold", 5, scheduleTimeoutSeconds=300)
    _members(api, namespace, "hold", 3)
    _members(api, namespace, "hold", 1, scheduler="nobody", first=3)
    url = f"https://127.0.0.1:{proc.port}"
    data = _explain_json(local_cluster, f"{namespace}/hold-0", config)
    group = data["group"]
    assert (group["name"], group["minMember"]) == ("hold", 5)
    assert group["timeout"] == "300s (spec.scheduleTimeoutSeconds)"
    assert group["lacks"] == "4 of 5 members exist; the group waits until 5 do"
    assert "--scheduler-url" in group["permit"]["summary"]
    assert group["permit"]["held"] is None

    # A fifth member (for nobody's scheduler too): the three pass PreFilter and wait at
    # Permit for the two that never come. The endpoint refuses an anonymous caller like
    # /metrics; the admin sees the three.
    _members(api, namespace, "hold", 1, scheduler="nobody", first=4)
    assert proc.get(WAITING_PODS_PATH, token="")[0] == 401
    assert proc.get("/metrics", token="")[0] == 401
    listed = wait_for(
        lambda: json.loads(proc.get(WAITING_PODS_PATH)[1]),
        until=lambda doc: sorted(i["name"] for i in doc["items"]) == HELD,
        timeout=30,
        message="three members held at Permit",
    )
    assert listed["leading"] is True
    assert _bound(api, namespace, "hold") == 0

    # With the URL (and the scheduler's self-signed certificate as CA), exactly the three
    # are listed as waiting, and the summary counts them.
    ca = tmp_path / "kubesched-0-certs" / "kubesched.crt"
    data = _explain_json(
        local_cluster,
        f"{namespace}/hold-1",
        config,
        f"--scheduler-url={url}",
        f"--scheduler-certificate-authority={ca}",
    )
    group = data["group"]
    assert sorted(h["name"] for h in group["permit"]["held"]) == HELD
    # Its two waiting siblings use room on their nodes, as in the leader's cache.
    assert any("holds 2 other pod(s) at Permit" in note for note in data["notes"])
    states = {m["name"]: m["state"] for m in group["members"]}
    assert states == {
        "hold-0": "waiting at Permit",
        "hold-1": "waiting at Permit",
        "hold-2": "waiting at Permit",
        "hold-3": "pending",
        "hold-4": "pending",
    }
    waiting = group["members"][0]["waiting"]
    assert waiting["plugins"] == ["Coscheduling"]
    assert waiting["node"] in ("xg-a", "xg-b")
    assert group["lacks"] == "3 of 5 fit (3 waiting at Permit, 0 bound); 2 more need room"
    assert group["status"]["phase"] in ("Pending", "Scheduling")

    # The table says the same in words, and still ends with the decision.
    done = explain(local_cluster, f"{namespace}/hold-2", config, f"--scheduler-url={url}")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "group: PodGroup " + f"{namespace}/hold (scheduling.x-k8s.io/v1alpha1), minMember 5" in (
        lines
    )
    # Without the CA the self-signed certificate is not trusted: one line names the fix,
    # and explain prints the rest.
    held = next(line for line in lines if line.startswith("  held at Permit: "))
    assert "is not trusted" in held
    assert "--scheduler-certificate-authority=FILE" in held
    assert not any("Traceback" in line for line in done.stderr.splitlines())
    assert lines[-1].startswith(("kubesched would choose", "FailedScheduling:", "tie between"))

    # An address nobody serves: one line, the rest still printed.
    data = _explain_json(
        local_cluster, f"{namespace}/hold-0", config, "--scheduler-url=https://127.0.0.1:1"
    )
    assert data["group"]["permit"]["summary"].startswith(
        "unknown: cannot reach the scheduler at https://127.0.0.1:1 ("
    )
    assert data["group"]["lacks"].startswith("0 of 5 members are bound; what the scheduler ")
