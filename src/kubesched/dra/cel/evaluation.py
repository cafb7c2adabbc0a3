"""What compiled closures run besides the library's functions: indexing (`a[k]`), calling a
function with cel-go's `no such overload` for a wrong argument type, and the comprehension
loops of the macros (`all`, `exists`, `exists_one`, `map`, `filter`, `transformList`,
`transformMap`), each step charged to the evaluation's cost and deadline."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from kubesched.dra.cel.program import RUN, Fn, Run
from kubesched.dra.cel.values import (
    CelError,
    CostLimitExceeded,
    DefaultMap,
    format_key,
    go_type_name,
    map_lookup,
    no_such_overload,
    truthy,
    type_name,
)

Function = Callable[..., Any]

UNSET: Final = object()
"""A variable the activation did not hold before a scope bound it."""


def restore(act: dict[str, Any], var: str, saved: Any) -> None:
    if saved is UNSET:
        act.pop(var, None)
    else:
        act[var] = saved


def invoke(fn: Function, *args: Any) -> Any:
    for arg in args:
        if isinstance(arg, CelError):  # pragma: no cover - errors are raised, never passed
            raise arg
    try:
        return fn(*args)
    except CelError:
        raise
    except TypeError:
        raise no_such_overload() from None


def index_value(value: Any, key: Any, *, default: bool = True) -> Any:
    if isinstance(value, Mapping):
        if not default and isinstance(value, DefaultMap) and key not in value:
            raise CelError(f"no such key: {format_key(key)}")
        return map_lookup(value, key)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if isinstance(key, bool) or not isinstance(key, int):
            raise CelError(f"unsupported index type '{type_name(key)}' in list")
        if key < 0 or key >= len(value):
            raise CelError(f"index out of range: {key}")
        return value[key]
    raise no_such_overload()


def _iterable(value: Any) -> Sequence[Any] | Mapping[Any, Any]:
    if isinstance(value, Mapping) or (
        isinstance(value, Sequence) and not isinstance(value, str | bytes)
    ):
        return value
    raise CelError(f"got '{go_type_name(value)}', expected iterable type")


def _pairs(container: Sequence[Any] | Mapping[Any, Any], two: bool) -> list[tuple[Any, ...]]:
    if isinstance(container, Mapping):
        return [(k, v) if two else (k,) for k, v in container.items()]
    return [(i, v) if two else (v,) for i, v in enumerate(container)]


MacroBuilder = Callable[[Fn, list[str], Fn, Fn | None, int], Fn]


def _loop(
    target: Fn,
    names: list[str],
    body: Fn,
    step_cost: int,
    visit: Callable[[Any, dict[str, Any]], bool],
) -> Fn:
    """Runs `visit(body value, act)` for each element until it returns False; binds the
    loop variables, charges `step_cost` per step and restores the variables afterwards."""
    two = len(names) == 2

    def run(act: dict[str, Any]) -> None:
        container = _iterable(target(act))
        run_state: Run = act[RUN]
        saved = [act.get(n, UNSET) for n in names]
        try:
            for values in _pairs(container, two):
                run_state.spend(step_cost)
                act.update(zip(names, values, strict=True))
                if not visit(body, act):
                    break
        finally:
            for var, value in zip(names, saved, strict=True):
                restore(act, var, value)

    return run


def _all(target: Fn, names: list[str], body: Fn, _guard: Fn | None, cost: int) -> Fn:
    return _quantifier(target, names, body, cost, want=False)


def _exists(target: Fn, names: list[str], body: Fn, _guard: Fn | None, cost: int) -> Fn:
    return _quantifier(target, names, body, cost, want=True)


def _quantifier(target: Fn, names: list[str], body: Fn, cost: int, *, want: bool) -> Fn:
    """`all` (stops at the first false) and `exists` (at the first true); an error is kept
    and raised only if no element decides the result, as cel-go's accumulator does."""

    def evaluate(act: dict[str, Any]) -> bool:
        state: dict[str, Any] = {"decided": False, "error": None}

        def visit(fn: Fn, a: dict[str, Any]) -> bool:
            try:
                value = fn(a)
            except CostLimitExceeded:
                raise
            except CelError as exc:
                state["error"] = state["error"] or exc
                return True
            if value is want:
                state["decided"] = True
                return False
            if not isinstance(value, bool):
                state["error"] = state["error"] or no_such_overload()
            return True

        _loop(target, names, body, cost, visit)(act)
        if state["decided"]:
            return want
        if state["error"] is not None:
            raise state["error"]
        return not want

    return evaluate


def _exists_one(target: Fn, names: list[str], body: Fn, _guard: Fn | None, cost: int) -> Fn:
    def evaluate(act: dict[str, Any]) -> bool:
        count = [0]

        def visit(fn: Fn, a: dict[str, Any]) -> bool:
            if truthy(fn(a)):
                count[0] += 1
            return True

        _loop(target, names, body, cost, visit)(act)
        return count[0] == 1

    return evaluate


def _map(target: Fn, names: list[str], body: Fn, guard: Fn | None, cost: int) -> Fn:
    def evaluate(act: dict[str, Any]) -> list[Any]:
        out: list[Any] = []

        def visit(fn: Fn, a: dict[str, Any]) -> bool:
            if guard is None or truthy(guard(a)):
                out.append(fn(a))
            return True

        _loop(target, names, body, cost, visit)(act)
        return out

    return evaluate


def _filter(target: Fn, names: list[str], body: Fn, _guard: Fn | None, cost: int) -> Fn:
    def evaluate(act: dict[str, Any]) -> list[Any]:
        out: list[Any] = []

        def visit(fn: Fn, a: dict[str, Any]) -> bool:
            if truthy(fn(a)):
                out.append(a[names[-1]] if len(names) == 1 else a[names[0]])
            return True

        _loop(target, names, body, cost, visit)(act)
        return out

    return evaluate


def _transform_map(target: Fn, names: list[str], body: Fn, guard: Fn | None, cost: int) -> Fn:
    def evaluate(act: dict[str, Any]) -> dict[Any, Any]:
        out: dict[Any, Any] = {}

        def visit(fn: Fn, a: dict[str, Any]) -> bool:
            if guard is None or truthy(guard(a)):
                out[a[names[0]]] = fn(a)
            return True

        _loop(target, names, body, cost, visit)(act)
        return out

    return evaluate


MACRO_BUILDERS: Final[dict[str, MacroBuilder]] = {
    "all": _all,
    "exists": _exists,
    "exists_one": _exists_one,
    "existsOne": _exists_one,
    "map": _map,
    "transformList": _map,
    "filter": _filter,
    "transformMap": _transform_map,
}
