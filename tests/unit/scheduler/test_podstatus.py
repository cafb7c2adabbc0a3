"""patch_pod_scheduled: PodScheduled (and nominatedNodeName) patched only when they change."""

from __future__ import annotations

import asyncio
import gc
import re
from typing import Any

import pytest

from kubesched.kube.api import STRATEGIC_MERGE_PATCH
from kubesched.kube.errors import ApiError
from kubesched.model import Pod
from kubesched.scheduler import podstatus
from kubesched.scheduler.podstatus import (
    SCHEDULER_ERROR,
    UNSCHEDULABLE,
    condition_changed,
    patch_pod_scheduled,
    written_condition,
)
from kubesched.testing import make_pod
from tests.unit.api_fakes import FakeApi

MESSAGE = "0/3 nodes are available: 3 Insufficient cpu."


def pod_with_condition(status: str, reason: str, message: str) -> Pod:
    raw = make_pod().name("p").namespace("ns").obj()
    raw["status"]["conditions"] = [
        {"type": "Ready", "status": "False"},
        {"type": "PodScheduled", "status": status, "reason": reason, "message": message},
    ]
    return Pod.from_json(raw)


async def test_first_condition_is_patched_with_the_upstream_shape() -> None:
    api = FakeApi()
    pod = make_pod().name("p").namespace("ns").model()
    assert pod.scheduled_condition is None

    changed = await patch_pod_scheduled(
        api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE, timeout=5
    )

    assert changed
    (call,) = api.patches()
    assert call.path == "/api/v1/namespaces/ns/pods/p/status"
    assert call.content_type == STRATEGIC_MERGE_PATCH
    assert call.timeout == 5
    body = call.body
    assert body["metadata"] == {"uid": "uid-p"}
    assert set(body["status"]) == {"conditions"}
    (condition,) = body["status"]["conditions"]
    assert condition["type"] == "PodScheduled"
    assert condition["status"] == "False"
    assert condition["reason"] == "Unschedulable"
    assert condition["message"] == MESSAGE
    assert condition["lastProbeTime"] is None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", condition["lastTransitionTime"])
    assert written_condition(pod) == ("False", UNSCHEDULABLE, MESSAGE)
    assert pod.scheduled_condition is None  # the object read is never written


async def test_unchanged_condition_is_not_patched() -> None:
    api = FakeApi()
    pod = pod_with_condition("False", UNSCHEDULABLE, MESSAGE)
    changed = await patch_pod_scheduled(
        api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE
    )
    assert not changed
    assert not api.calls


async def test_second_identical_call_is_a_no_op() -> None:
    api = FakeApi()
    pod = make_pod().name("p").model()
    for _ in range(3):
        await patch_pod_scheduled(api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE)
    assert len(api.patches()) == 1


@pytest.mark.parametrize(
    ("status", "reason", "message"),
    [
        ("False", UNSCHEDULABLE, "0/4 nodes are available: 4 Insufficient cpu."),
        ("False", SCHEDULER_ERROR, MESSAGE),
        ("True", "", ""),
    ],
)
async def test_any_difference_is_patched(status: str, reason: str, message: str) -> None:
    api = FakeApi()
    pod = pod_with_condition("False", UNSCHEDULABLE, MESSAGE)
    assert condition_changed(pod, status=status, reason=reason, message=message)
    assert await patch_pod_scheduled(api, pod, status=status, reason=reason, message=message)
    assert api.patches()[0].body["status"]["conditions"][0]["reason"] == reason


async def test_nominated_node_name_is_patched_when_it_changes() -> None:
    api = FakeApi()
    pod = pod_with_condition("False", UNSCHEDULABLE, MESSAGE)
    changed = await patch_pod_scheduled(
        api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE, nominated_node_name="n1"
    )
    assert changed
    status = api.patches()[0].body["status"]
    assert status["nominatedNodeName"] == "n1"
    assert status["conditions"][0]["type"] == "PodScheduled"


async def test_same_nominated_node_name_is_not_patched() -> None:
    api = FakeApi()
    raw = make_pod().name("p").obj()
    raw["status"]["nominatedNodeName"] = "n1"
    raw["status"]["conditions"] = [
        {"type": "PodScheduled", "status": "False", "reason": UNSCHEDULABLE, "message": MESSAGE}
    ]
    pod = Pod.from_json(raw)
    changed = await patch_pod_scheduled(
        api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE, nominated_node_name="n1"
    )
    assert not changed
    assert not api.calls


async def test_failed_patch_raises_and_leaves_the_pod_unchanged() -> None:
    api = FakeApi()
    api.fail_next(ApiError.from_status(500, {}))
    pod = make_pod().name("p").model()
    with pytest.raises(ApiError):
        await patch_pod_scheduled(api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE)
    assert written_condition(pod) is None
    # so the next attempt tries again
    assert await patch_pod_scheduled(
        api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE
    )


async def test_transition_time_moves_only_when_the_status_changes() -> None:
    api = FakeApi()
    pod = pod_with_condition("False", UNSCHEDULABLE, MESSAGE)
    await patch_pod_scheduled(api, pod, status="False", reason=SCHEDULER_ERROR, message="boom")
    await patch_pod_scheduled(api, pod, status="True", reason="", message="")
    same_status, new_status = (p.body["status"]["conditions"][0] for p in api.patches())
    # A PATCH without the field keeps the old value, as upstream's UpdatePodCondition does.
    assert "lastTransitionTime" not in same_status
    assert "lastTransitionTime" in new_status


async def test_what_was_written_is_forgotten_with_the_pod_object() -> None:
    api = FakeApi()
    pods = [make_pod().name(f"p{i}").uid(f"u{i}").model() for i in range(50)]
    for pod in pods:
        await patch_pod_scheduled(api, pod, status="False", reason=UNSCHEDULABLE, message=MESSAGE)
    assert all(written_condition(pod) is not None for pod in pods)
    before = len(podstatus._WRITTEN)
    del pods, pod
    gc.collect()
    assert len(podstatus._WRITTEN) <= before - 50


class _SlowFirstApi(FakeApi):
    """Records the order the patches reach the server; the first one is held until released."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.applied: list[str] = []

    async def patch(
        self,
        path: str,
        body: dict[str, Any] | list[Any],
        *,
        content_type: str = STRATEGIC_MERGE_PATCH,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        answer = await super().patch(path, body, content_type=content_type, timeout=timeout)
        if len(self.patches()) == 1:
            await self.release.wait()
        assert isinstance(body, dict)
        self.applied.append(body["status"]["conditions"][0]["message"])
        return answer


async def test_a_pods_patches_reach_the_server_in_the_order_asked() -> None:
    """Upstream `handleSchedulingFailure` calls `updatePod` inside the failing cycle (and,
    with SchedulerAsyncAPICalls, `callQueue` keeps one call per object in flight): the
    pod's condition ends with the last cycle's text, never an earlier one landing late."""
    api = _SlowFirstApi()
    pod = make_pod().name("p").namespace("ns").model()

    def patch(message: str) -> asyncio.Task[bool]:
        call = patch_pod_scheduled(api, pod, status="False", reason=UNSCHEDULABLE, message=message)
        return asyncio.create_task(call)

    first, second = patch("first"), patch("second")
    await asyncio.sleep(0.01)
    assert len(api.patches()) == 1  # the second waits for the first to come back
    api.release.set()
    assert await first
    assert await second
    assert api.applied == ["first", "second"]
    assert written_condition(pod) == ("False", UNSCHEDULABLE, "second")
    assert len(podstatus._IN_FLIGHT) == 0
