"""`NodeAffinityArgs`: the node affinity added to every pod of the profile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from kubesched.model import nodeselector as ns
from kubesched.plugins.helper.args import (
    ArgsError,
    PluginArgs,
    check_fields,
    mapping,
    sequence,
    sorted_keys,
)
from kubesched.plugins.helper.fielderrors import (
    invalid,
    label_key_errors,
    label_value_errors,
    not_supported,
    raise_all,
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
        """Decode `addedAffinity` and validate its terms as upstream's `ValidateNodeAffinityArgs`
        (every error, aggregated); raises ArgsError."""
        check_fields(args, kind=_KIND, allowed=("addedAffinity",))
        raw = args.get("addedAffinity")
        added = mapping(raw, path=f"{_KIND}.addedAffinity")
        check_fields(added, kind=f"{_KIND}.addedAffinity", allowed=(ns.REQUIRED, ns.PREFERRED))
        raise_all(_affinity_errors(added, path=f"{_KIND}.addedAffinity"))
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


_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_FIELD_OPERATORS = ("In", "NotIn")


def _affinity_errors(added: Mapping[str, Any], *, path: str) -> list[str]:
    """Upstream's `nodeaffinity.NewNodeSelector` and `NewPreferredSchedulingTerms` errors (empty
    terms and weight-0 preferred terms are skipped, as there)."""
    errors = []
    required = added.get(ns.REQUIRED)
    if required is not None:
        selector = mapping(required, path=f"{path}.{ns.REQUIRED}")
        terms_path = f"{path}.{ns.REQUIRED}.nodeSelectorTerms"
        for i, term in enumerate(sequence(selector.get("nodeSelectorTerms"), path=terms_path)):
            errors += _term_errors(mapping(term, path=f"{terms_path}[{i}]"), f"{terms_path}[{i}]")
    preferred_path = f"{path}.{ns.PREFERRED}"
    for i, item in enumerate(sequence(added.get(ns.PREFERRED), path=preferred_path)):
        preferred = mapping(item, path=f"{preferred_path}[{i}]")
        preference = mapping(preferred.get("preference"), path=f"{preferred_path}[{i}].preference")
        if preferred.get("weight"):
            errors += _term_errors(preference, f"{preferred_path}[{i}]")  # no `.preference`
    return errors


def _term_errors(term: Mapping[str, Any], path: str) -> list[str]:
    errors = []
    expressions = sequence(term.get("matchExpressions"), path=f"{path}.matchExpressions")
    for i, raw in enumerate(expressions):
        where = f"{path}.matchExpressions[{i}]"
        expression = mapping(raw, path=where)
        operator = expression.get("operator", "")
        if operator not in _OPERATORS:
            errors.append(not_supported(f"{where}.operator", operator, _OPERATORS))
            continue
        errors += _requirement_errors(expression, operator, where)
    fields = sequence(term.get("matchFields"), path=f"{path}.matchFields")
    for i, raw in enumerate(fields):
        where = f"{path}.matchFields[{i}]"
        expression = mapping(raw, path=where)
        operator = expression.get("operator", "")
        values = expression.get("values")
        if operator not in _FIELD_OPERATORS:
            errors.append(not_supported(f"{where}.operator", operator, _FIELD_OPERATORS))
        elif len(values or ()) != 1:
            errors.append(invalid(f"{where}.values", values, "must have one element"))
    return errors


def _requirement_errors(expression: Mapping[str, Any], operator: str, where: str) -> list[str]:
    """apimachinery's `labels.NewRequirement` for a node selector requirement."""
    key = str(expression.get("key", ""))
    values = expression.get("values")
    items = [str(value) for value in values or ()]
    errors = []
    problems = label_key_errors(key)
    if problems:
        errors.append(invalid(f"{where}.key", key, "; ".join(problems)))
    path = f"{where}.values"
    if operator in ("In", "NotIn") and not items:
        errors.append(
            invalid(path, values, "for 'in', 'notin' operators, values set can't be empty")
        )
    elif operator in ("Exists", "DoesNotExist") and items:
        errors.append(
            invalid(path, values, "values set must be empty for exists and does not exist")
        )
    elif operator in ("Gt", "Lt"):
        if len(items) != 1:
            detail = "for 'Gt', 'Lt' operators, exactly one value is required"
            errors.append(invalid(path, values, detail))
        for i, item in enumerate(items):
            if ns.parse_go_int(item) is None:
                detail = "for 'Gt', 'Lt' operators, the value must be an integer"
                errors.append(invalid(f"{path}[{i}]", item, detail))
    for i, item in enumerate(items):
        problems = label_value_errors(item)
        if problems:
            errors.append(invalid(f"{path}[{i}][{key}]", item, "; ".join(problems)))
    return errors
