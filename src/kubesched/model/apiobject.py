"""Any API object a plugin reads (a ConfigMap, a PodGroup, a CRD's custom resource), kept as
its metadata plus the raw `spec`/`status`/`data` the plugin parses itself.

Cluster-aware plugins get these from a lister (`Handle.lister(resource)`); kubesched does
not know their schema, so only the metadata is decoded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubesched.model.pod import OwnerReference, owner_reference

_METADATA_KEYS = ("metadata", "apiVersion", "kind")


@dataclass(frozen=True, slots=True)
class ApiObject:
    """One object: its identity, labels, annotations, owners and the rest of its JSON."""

    namespace: str
    name: str
    uid: str = ""
    resource_version: str = ""
    generation: int = 0
    creation_timestamp: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    annotations: Mapping[str, str] = field(default_factory=dict)
    owners: tuple[OwnerReference, ...] = ()
    finalizers: tuple[str, ...] = ()
    deleting: bool = False
    """`metadata.deletionTimestamp` is set."""
    body: Mapping[str, Any] = field(default_factory=dict)
    """Everything but `metadata`, `apiVersion` and `kind`: `spec`, `status`, `data`, ..."""

    @property
    def key(self) -> str:
        """`namespace/name` (just `name` for cluster-scoped objects)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def spec(self) -> Mapping[str, Any]:
        return self.body.get("spec") or {}

    @property
    def status(self) -> Mapping[str, Any]:
        return self.body.get("status") or {}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any], *, keep: tuple[str, ...] = ()) -> ApiObject:
        """The object; `keep` (dotted paths, `spec.selector`) trims the body to those parts
        (`ResourceSpec.keep`)."""
        meta = obj.get("metadata") or {}
        return cls(
            namespace=meta.get("namespace", ""),
            name=meta.get("name", ""),
            uid=meta.get("uid", ""),
            resource_version=meta.get("resourceVersion", ""),
            generation=int(meta.get("generation") or 0),
            creation_timestamp=meta.get("creationTimestamp") or "",
            labels=dict(meta.get("labels") or {}),
            annotations=dict(meta.get("annotations") or {}),
            owners=tuple(owner_reference(ref) for ref in meta.get("ownerReferences") or ()),
            finalizers=tuple(meta.get("finalizers") or ()),
            deleting=meta.get("deletionTimestamp") is not None,
            body=_kept(_body(obj), keep) if keep else _body(obj),
        )


def _body(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in _METADATA_KEYS}


def _kept(obj: Mapping[str, Any], paths: tuple[str, ...]) -> dict[str, Any]:
    """The parts of `obj` at `paths` (dotted), nested as in `obj`: the paths under one key
    are kept together (a path that ends at the key keeps all of it)."""
    under: dict[str, list[str]] = {}
    for path in paths:
        head, _, rest = path.partition(".")
        under.setdefault(head, []).append(rest)
    kept: dict[str, Any] = {}
    for head, rests in under.items():
        value = obj.get(head)
        if value is None:
            continue
        if "" in rests:
            kept[head] = value
        elif isinstance(value, Mapping) and (inner := _kept(value, tuple(rests))):
            kept[head] = inner
    return kept
