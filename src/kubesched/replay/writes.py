"""A plugin's writes in a replay, applied to the replayed cluster as the API server applies
them: a JSON merge patch (or the strategic merge patches kubesched's plugins send) checked
against the `resourceVersion` or `uid` it carries (a mismatch is a conflict), the
`/status` subresource changing only the status, a create, a delete; each new version gets
the next resourceVersion and goes through the replayed cluster's lister and cluster event,
as an informer would deliver it.

An object the replay wrote is the replay's from then on (`written`): later recorded
versions of it are ignored (they are the recorded scheduler's decisions and their
consequences), a recorded deletion still deletes it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Mapping
from typing import Any

from kubesched.framework import ObjectWriteError
from kubesched.replay import trace
from kubesched.replay.stores import Objects

RESOURCE_VERSIONS = itertools.count(10**12)
"""The replay's resourceVersions: above any a recording holds, increasing."""


def kind_name(group: str, resource: str) -> str:
    """How a trace names a resource (`persistentvolumes`, `resource.k8s.io/resourceclaims`)."""
    return f"{group}/{resource}" if group else resource


def merge_patch(target: Any, patch: Any, *, strategic: bool = False) -> Any:
    """RFC 7386 (a null removes a key; a list replaces the list); `strategic`: a list whose
    patch items carry `$patch: delete` drops the items matching them (`reservedFor`)."""
    if not isinstance(patch, Mapping):
        if strategic and isinstance(patch, list) and isinstance(target, list):
            return _strategic_list(target, patch)
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value, strategic=strategic)
    return result


def _strategic_list(target: list[Any], patch: list[Any]) -> list[Any]:
    kept = list(target)
    for item in patch:
        if isinstance(item, Mapping) and item.get("$patch") == "delete":
            match = {k: v for k, v in item.items() if k != "$patch"}
            kept = [
                old
                for old in kept
                if not (isinstance(old, Mapping) and all(old.get(k) == v for k, v in match.items()))
            ]
        elif item not in kept:
            kept.append(copy.deepcopy(item))
    return kept


class ClusterWrites:
    """Writes to the replayed cluster's objects, by trace kind name."""

    def __init__(self, kinds: Mapping[str, Objects]) -> None:
        self._kinds = kinds
        self.written: set[tuple[str, str]] = set()
        """(kind, key) of every object the replay wrote."""

    def owns(self, kind: str, key: str) -> bool:
        return (kind, key) in self.written

    def known(self, kind: str, key: str) -> dict[str, Any] | None:
        """The object as the replayed cluster holds it, or None (also for a kind it lacks)."""
        objects = self._kinds.get(kind)
        return objects.raw.get(key) if objects is not None else None

    def get(self, kind: str, key: str) -> dict[str, Any]:
        """The object as the replayed cluster holds it; not found raises."""
        raw = self._objects(kind).raw.get(key)
        if raw is None:
            raise ObjectWriteError(f'{kind} "{key}" not found', not_found=True)
        return raw

    def patch(
        self,
        kind: str,
        key: str,
        patch: Mapping[str, Any],
        *,
        status: bool = False,
        strategic: bool = False,
    ) -> dict[str, Any]:
        """The object after `patch`, stored; a stale resourceVersion or uid conflicts."""
        current = self.get(kind, key)
        meta = patch.get("metadata") or {}
        _precondition(kind, key, current, meta)
        objects = self._objects(kind)
        if objects.status_subresource:
            patch = _subresource_part(patch, status=status)
        updated = merge_patch(current, patch, strategic=strategic)
        return self.put(kind, updated)

    def put(self, kind: str, obj: dict[str, Any]) -> dict[str, Any]:
        """Store `obj` (created or replaced) with the next resourceVersion."""
        meta = obj.setdefault("metadata", {})
        meta["resourceVersion"] = str(next(RESOURCE_VERSIONS))
        self._objects(kind).apply(trace.MODIFIED, obj)
        self.written.add((kind, _key(obj)))
        return obj

    def create(self, kind: str, namespace: str, body: Mapping[str, Any]) -> dict[str, Any]:
        obj = copy.deepcopy(dict(body))
        meta = obj.setdefault("metadata", {})
        if namespace:
            meta["namespace"] = namespace
        if not meta.get("name"):
            meta["name"] = f"{meta.get('generateName', 'replay-')}{next(RESOURCE_VERSIONS)}"
        if _key(obj) in self._objects(kind).raw:
            raise ObjectWriteError(f'{kind} "{_key(obj)}" already exists')
        meta.setdefault("uid", f"replay-{meta['name']}")
        return self.put(kind, obj)

    def delete(self, kind: str, key: str) -> None:
        objects = self._objects(kind)
        if key in objects.raw:
            objects.apply(trace.DELETED, objects.raw[key])

    def _objects(self, kind: str) -> Objects:
        objects = self._kinds.get(kind)
        if objects is None:
            raise ObjectWriteError(f"{kind} is not held by the replayed cluster")
        return objects


def _key(obj: Mapping[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace", "")
    return f"{namespace}/{meta.get('name', '')}" if namespace else str(meta.get("name", ""))


def _precondition(kind: str, key: str, current: Mapping[str, Any], meta: Mapping[str, Any]) -> None:
    held = current.get("metadata") or {}
    for field in ("resourceVersion", "uid"):
        wanted = meta.get(field)
        if wanted and wanted != held.get(field):
            raise ObjectWriteError(
                f'Operation cannot be fulfilled on {kind} "{key}": the object has been '
                "modified; please apply your changes to the latest version and try again",
                conflict=True,
            )


def _subresource_part(patch: Mapping[str, Any], *, status: bool) -> dict[str, Any]:
    """What a write to the object (or to its `/status`) may change: the status only, or
    everything but the status."""
    if status:
        return {"status": patch.get("status") or {}}
    return {k: v for k, v in patch.items() if k != "status"}
