"""scheduler_perf's `churn` op: objects created (and deleted) in the background while the
measured pods are scheduled, so that the scheduler sees cluster events it must react to
(pods that fit nowhere entering its queue, nodes coming and going, Services).

    create    every interval, one object of each template; none is deleted
    recreate  every interval, the objects of the previous tick are deleted and `number`
              objects of each template (upstream's `number`, 1 unless said) created again
    delete    upstream's `deletePods` op: the pods of the namespace, as listed when it
              starts, deleted one every interval (each with its own grace period)
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from kubesched.bench import templates as t
from kubesched.bench import templates_events as e
from kubesched.bench.load import create_one
from kubesched.bench.workloads import Churn
from kubesched.kube.client import KubeClient
from kubesched.kube.errors import ApiError, NotFound

_POD_TEMPLATES: dict[str, t.PodTemplate] = {
    "high-priority-large-cpu": t.pod_high_priority_large_cpu,
    "default": t.pod_default,
    "preemptor": e.pod_preemptor,
    "starvation": e.starvation_churn_pod,
}


def churn_object(
    template: str, index: int, churn: Churn, scheduler: str
) -> tuple[str, dict[str, Any]]:
    """(collection path, body) of the `index`-th object of `template`."""
    if template == "node":
        return "/api/v1/nodes", t.churn_node(f"node-churn-{index}")
    if template == "service":
        path = f"/api/v1/namespaces/{churn.namespace}/services"
        return path, t.churn_service(f"service-churn-{index}", churn.namespace)
    kind, _, name = template.partition(":")
    if kind != "pod" or name not in _POD_TEMPLATES:
        raise ValueError(f"unknown churn template {template!r}")
    path = f"/api/v1/namespaces/{churn.namespace}/pods"
    return path, _POD_TEMPLATES[name](f"churn-{name}-{index}", churn.namespace, scheduler)


async def run_churn(client: KubeClient, churn: Churn, scheduler: str) -> None:
    """Churn until cancelled (`delete`: until every pod listed is deleted)."""
    if churn.mode == "delete":
        await _delete_pods(client, churn)
        return
    previous: list[str] = []
    for tick in itertools.count():
        if churn.mode == "recreate":
            await asyncio.gather(*(_delete(client, path) for path in previous))
        created = []
        for template in churn.templates:
            batch = [
                churn_object(template, tick * churn.number + k, churn, scheduler)
                for k in range(churn.number)
            ]
            await asyncio.gather(*(create_one(client, path, body) for path, body in batch))
            created += [f"{path}/{body['metadata']['name']}" for path, body in batch]
        previous = created
        await asyncio.sleep(churn.interval)


async def _delete_pods(client: KubeClient, churn: Churn) -> None:
    path = f"/api/v1/namespaces/{churn.namespace}/pods"
    listing = await client.get(path, timeout=60)
    for pod in listing.get("items") or ():
        await asyncio.sleep(churn.interval)
        name = pod["metadata"]["name"]
        try:
            await client.delete(f"{path}/{name}", timeout=30)
        except NotFound:
            continue


async def _delete(client: KubeClient, path: str) -> None:
    try:
        await client.delete(path, body={"gracePeriodSeconds": 0}, timeout=30)
    except NotFound:
        return
    except ApiError:
        return  # a missed deletion only leaves one more object behind
