"""The start-up check of `--feature-gates=GenericWorkload=true`: one line naming the fix
when the API server does not serve scheduling.k8s.io/v1beta1 PodGroups."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from kubesched.apis.config import KubeSchedulerConfiguration, Profile
from kubesched.kube.errors import NotFound
from kubesched.server.served import unserved_problem

GATED = KubeSchedulerConfiguration(profiles=(Profile(generic_workload=True),))


class _Discovery:
    def __init__(self, answer: dict[str, Any] | None) -> None:
        self.answer = answer
        self.paths: list[str] = []

    async def get(self, path: str, *, timeout: float | None = None) -> dict[str, Any]:
        del timeout
        self.paths.append(path)
        if self.answer is None:
            raise NotFound(404, "NotFound", "the server could not find the requested resource")
        return self.answer


def _problem(answer: dict[str, Any] | None, config: KubeSchedulerConfiguration = GATED) -> str:
    return asyncio.run(unserved_problem(_Discovery(answer), config))  # type: ignore[arg-type]


@pytest.mark.parametrize("answer", [None, {"resources": [{"name": "workloads"}]}])
def test_a_gated_scheduler_refuses_an_api_server_without_podgroups(answer: Any) -> None:
    problem = _problem(answer)
    assert "\n" not in problem
    assert problem.startswith(
        "--feature-gates=GenericWorkload=true needs the API server to serve "
        "podgroups.scheduling.k8s.io/v1beta1, and it does not: start kube-apiserver with "
        "--feature-gates=GenericWorkload=true and --runtime-config=scheduling.k8s.io/v1beta1=true"
    )


def test_served_podgroups_or_no_gate_pass() -> None:
    assert _problem({"resources": [{"name": "podgroups"}, {"name": "podgroups/status"}]}) == ""
    assert _problem(None, KubeSchedulerConfiguration()) == ""
