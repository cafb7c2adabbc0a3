"""`NodeAffinityArgs`: the node affinity added to every pod of the profile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.plugins.helper import nodeselector as ns
from kubesched.plugins.helper.args import (
    ArgsError,
    PluginArgs,
    check_fields,
    mapping,
    sequence,
    sorted_keys,
)

_KIND = "NodeAffinityArgs"


@dataclass(frozen=True, slots=True)
class NodeAffinityArgs(PluginArgs):
    """Upstream `NodeAffinityArgs`, with its v1 defaults (none)."""

    KIND: ClassVar[str] = _KIND

    added_affinity: Mapping[str, Any] | None = None
    """A v1 `NodeAffinity`: its required terms are enforced on every pod of the profile,
    its preferred terms added to every score."""

    @classmethod
    def from_v1(cls, args: Mapping[str, Any]) -> Self:
        """Decode `addedAffinity` and check that its terms compile; raises ArgsError."""
        check_fields(args, kind=_KIND, allowed=("addedAffinity",))
        raw = args.get("addedAffinity")
        added = mapping(raw, path=f"{_KIND}.addedAffinity")
        check_fields(added, kind=f"{_KIND}.addedAffinity", allowed=(ns.REQUIRED, ns.PREFERRED))
        parsed = cls(None if raw is None else added)
        parsed.required_terms()
        parsed.preferred_terms()
        return parsed

    def required_terms(self) -> tuple[ns.Term, ...] | None:
        """The compiled `requiredDuringSchedulingIgnoredDuringExecution` (None: none)."""
        value = (self.added_affinity or {}).get(ns.REQUIRED)
        if value is None:
            return None
        terms = ns.compile_selector(mapping(value, path=f"addedAffinity.{ns.REQUIRED}"))
        for term in terms:
            if term.error:
                raise ArgsError(f"parsing addedAffinity.{ns.REQUIRED}: {term.error}")
        return terms

    def preferred_terms(self) -> tuple[tuple[int, ns.Term], ...]:
        """The compiled `preferredDuringSchedulingIgnoredDuringExecution` (weight, term)."""
        value = (self.added_affinity or {}).get(ns.PREFERRED)
        try:
            return ns.compile_preferred(sequence(value, path=f"addedAffinity.{ns.PREFERRED}"))
        except ns.TermError as exc:
            raise ArgsError(f"parsing addedAffinity.{ns.PREFERRED}: {exc}") from exc

    def to_v1(self) -> dict[str, Any]:
        if self.added_affinity is None:
            return {}
        return {"addedAffinity": sorted_keys(self.added_affinity)}
