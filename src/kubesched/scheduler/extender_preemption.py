"""Preemption with extenders (upstream `Evaluator.callExtenders` and `HTTPExtender.
ProcessPreemption`): the candidates DefaultPreemption's dry run found go to each interested
extender with a `preemptVerb`, in turn; each answers the nodes (and victims) it accepts,
and DefaultPreemption picks its node among what the last one left.

The dry run is synchronous and the extender calls are awaited, so PostFilter runs in two
steps on the cycle's (unchanging) snapshot: the candidates are found first (the plugin's
dry run, `DefaultPreemption.evaluate`, with a hook that keeps them), the extenders are
awaited, then PostFilter runs as always with a hook that hands it the extenders' candidates
(`EXTENDER_CANDIDATES` in the cycle state).

An extender sent `NodeNameToMetaVictims` (nodeCacheCapable) gets the victims' UIDs; the
others get `NodeNameToVictims` with each victim as the API server serves it. Every answer
is `NodeNameToMetaVictims`, read back against the snapshot.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from kubesched.apis.gotext import go_quote
from kubesched.apis.names import DEFAULT_PREEMPTION
from kubesched.framework import FILTER_RUNNER_KEY, CycleState, Status
from kubesched.framework.logkv import kv
from kubesched.framework.nodeinfo import NodeInfo
from kubesched.framework.status import Code
from kubesched.framework.verbosity import V
from kubesched.kube.extender_http import ExtenderCallError
from kubesched.model import Pod
from kubesched.plugins.default_preemption.evaluation import EXTENDER_CANDIDATES, Candidate
from kubesched.runtime import FitError, Framework
from kubesched.runtime.schedule import run_post_filter
from kubesched.scheduler.extenders import ExtenderAnswerError, HttpExtender, get_field

log = logging.getLogger(__name__)
PodJson = Callable[[Pod], Awaitable[dict[str, Any]]]
"""A pod as the API server serves it."""
NodeLookup = Callable[[str], NodeInfo | None]


async def post_filter(
    fw: Framework,
    state: CycleState,
    error: FitError,
    *,
    extenders: Sequence[HttpExtender],
    pod_json: PodJson,
    node_info: NodeLookup,
) -> None:
    """PostFilter for `error`'s pod, its preemption candidates narrowed by the interested
    extenders that preempt (none: PostFilter as always)."""
    pod = error.pod
    preempting = [e for e in extenders if e.supports_preemption and e.is_interested(pod)]
    plugin = _default_preemption(fw) if preempting else None
    if plugin is None:
        run_post_filter(fw, state, pod, error)
        return
    found: list[Candidate] = []

    def keep(candidates: list[Candidate]) -> list[Candidate]:
        found.extend(candidates)
        return []

    state.write(EXTENDER_CANDIDATES, keep)
    state.write(FILTER_RUNNER_KEY, fw)  # as the framework's PostFilter provides it
    try:
        plugin.evaluate(state, pod, error.diagnosis.node_to_status)
    except Exception:  # PostFilter below runs it again and reports what it raised
        found.clear()
    if found:
        narrowed = await narrow(preempting, pod, found, pod_json=pod_json, node_info=node_info)
        state.write(EXTENDER_CANDIDATES, lambda _candidates: narrowed)
    else:
        state.delete(EXTENDER_CANDIDATES)
    try:
        run_post_filter(fw, state, pod, error)
    finally:
        state.delete(EXTENDER_CANDIDATES)


def _default_preemption(fw: Framework) -> Any:
    """The profile's DefaultPreemption plugin (None without it)."""
    return next((p for p in fw.plugins.post_filter if p.name == DEFAULT_PREEMPTION), None)


async def narrow(
    extenders: Sequence[HttpExtender],
    pod: Pod,
    candidates: Sequence[Candidate],
    *,
    pod_json: PodJson,
    node_info: NodeLookup,
) -> list[Candidate] | Status:
    """Upstream `callExtenders`: the candidates the extenders leave, or the error status."""
    victims = {c.node_name: c for c in candidates}
    for extender in extenders:
        try:
            answer = await process_preemption(
                extender, pod, victims, pod_json=pod_json, node_info=node_info
            )
        except ExtenderCallError as exc:
            if extender.ignorable:
                log.log(
                    V(2),
                    "Skipped extender as it returned error and has ignorable flag set",
                    extra=kv(extender=extender.name, err=exc),
                )
                continue
            return Status(Code.ERROR, str(exc), error=exc)
        for node_name, candidate in list(answer.items()):
            if candidate.victims:
                continue
            if not extender.ignorable:
                message = f"expected at least one victim pod on node {go_quote(node_name)}"
                return Status(Code.ERROR, message)
            del answer[node_name]
            log.log(
                V(2),
                "Ignored node for which the extender didn't report victims",
                extra=kv(node=node_name, extender=extender.name),
            )
        victims = answer
        if not victims:
            break
    return list(victims.values())


async def process_preemption(
    extender: HttpExtender,
    pod: Pod,
    victims: Mapping[str, Candidate],
    *,
    pod_json: PodJson,
    node_info: NodeLookup,
) -> dict[str, Candidate]:
    """Upstream `ProcessPreemption`: the nodes and victims `extender` accepts."""
    args: dict[str, Any] = {"Pod": await pod_json(pod)}
    if extender.config.node_cache_capable:
        args["NodeNameToVictims"] = None
        args["NodeNameToMetaVictims"] = {
            node: _meta_victims(c, [{"UID": v.uid} for v in c.victims])
            for node, c in victims.items()
        }
    else:
        args["NodeNameToVictims"] = {
            node: _meta_victims(c, [await pod_json(v) for v in c.victims])
            for node, c in victims.items()
        }
        args["NodeNameToMetaVictims"] = None
    answer = await extender.client.post(extender.config.preempt_verb, args)
    meta = get_field(answer, "NodeNameToMetaVictims") if isinstance(answer, dict) else None
    return {
        node: _candidate(extender, node, entry, node_info) for node, entry in (meta or {}).items()
    }


def _meta_victims(candidate: Candidate, pods: list[Any]) -> dict[str, Any]:
    return {"Pods": pods, "NumPDBViolations": candidate.num_pdb_violations}


def _candidate(
    extender: HttpExtender, node_name: str, entry: object, node_info: NodeLookup
) -> Candidate:
    """An answered node's victims, looked up on the snapshot's node (upstream
    `convertToVictims`)."""
    info = node_info(node_name)
    if info is None:
        raise ExtenderAnswerError(f"nodeinfo not found for node name {go_quote(node_name)}")
    if entry is None:
        return Candidate(node_name, ())
    if not isinstance(entry, dict):
        raise ExtenderAnswerError(f"{extender.config.preempt_verb}: expected MetaVictims")
    victims = []
    for meta in get_field(entry, "Pods") or ():
        uid = str(get_field(meta, "UID") or "") if isinstance(meta, dict) else ""
        victim = info.pods.get(uid)
        if victim is None:
            raise ExtenderAnswerError(
                f"extender: {extender.name} claims to preempt pod (UID: &{{{uid}}}) on node: "
                f"{node_name}, but the pod is not found on that node"
            )
        victims.append(victim)
    violations = get_field(entry, "NumPDBViolations") or 0
    return Candidate(node_name, tuple(victims), int(violations))
