"""CEL expressions compiled once into Python closures.

cel-python (`celpy`) parses: its Lark grammar is CEL's, and its parse tree is what we
compile. Evaluating with celpy's own tree-walking interpreter costs 1.1-1.3 ms per device
(its transpiler 155-260 µs, and it cannot call functions defined outside celpy), far too slow
for a scheduler that checks every device of every node, so each tree is turned once into
nested closures (tens of µs per device) that follow cel-go's semantics as Kubernetes
configures it: heterogeneous equality, cross-type numeric comparisons, error absorption by
`&&`/`||`, int64 overflow checks, optional values, `cel.bind`, the two-variable
comprehensions, and a runtime cost limit checked in every comprehension step.

The check at compile time is cel-go's as far as an environment of `dyn` values allows: syntax,
undeclared identifiers and functions, and the output type of what can be typed statically.
The optional-value syntax (`a.?b`, `m[?k]`), which celpy's grammar lacks, is rewritten into
calls before parsing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from celpy.celparser import CELParseError, CELParser
from celpy.evaluation import celbytes, celstr
from lark import Token, Tree

from kubesched.dra.cel import library
from kubesched.dra.cel.values import (
    NONE,
    CelError,
    CostLimitExceeded,
    DefaultMap,
    Interrupted,
    OptionalValue,
    Uint,
    check_int,
    compare,
    equals,
    format_key,
    go_type_name,
    map_lookup,
    no_such_overload,
    truthy,
    type_name,
)

Fn = Callable[[dict[str, Any]], Any]
RUN: Final = "\x00run"
"""The activation key of the per-evaluation `Run` (cost and deadline)."""
INTERRUPT_CHECK_FREQUENCY: Final = 100
"""Comprehension steps between deadline checks (apiserver's `celconfig.CheckFrequency`)."""
_OPT_SELECT: Final = "__opt_select__"
_OPT_INDEX: Final = "__opt_index__"
_MACROS: Final = frozenset(
    {"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap"}
)


class CompileError(Exception):
    """The expression does not compile; `str()` is cel-go's text after `compilation failed: `."""


@dataclass(slots=True)
class Run:
    """One evaluation's budget: cost units spent and the wall-clock deadline."""

    limit: int
    deadline: float | None = None
    cost: int = 0
    steps: int = 0

    def spend(self, units: int) -> None:
        self.cost += units
        if self.cost > self.limit:
            raise CostLimitExceeded
        self.steps += 1
        if (
            self.deadline is not None
            and self.steps % INTERRUPT_CHECK_FREQUENCY == 0
            and time.monotonic() > self.deadline
        ):
            raise Interrupted("deadline exceeded")


@dataclass(frozen=True, slots=True)
class _Node:
    fn: Fn
    type: str
    """The static CEL type ("dyn" when only the value can tell)."""
    cost: int
    """cel-go's cost units for one evaluation outside comprehension loops."""


@dataclass(frozen=True, slots=True)
class Program:
    """A compiled expression: `evaluate(variables, run)` returns its value or raises CelError."""

    expression: str
    output_type: str
    root: Fn
    base_cost: int

    def evaluate(self, variables: Mapping[str, Any], run: Run) -> Any:
        activation = dict(variables)
        activation[RUN] = run
        run.spend(self.base_cost)
        return self.root(activation)


def compile_expression(expression: str, variables: frozenset[str]) -> Program:
    """Parse and compile; raises CompileError with cel-go's message."""
    source = rewrite_optional_syntax(expression)
    try:
        tree = CELParser().parse(source)
    except CELParseError as exc:
        line, column = exc.line or 1, exc.column or 1
        detail = str(exc.args[0]).splitlines()[0] if exc.args else "syntax error"
        raise CompileError(
            f"ERROR: <input>:{line}:{column}: Syntax error: {detail}\n | {expression}"
        ) from None
    node = _Compiler(variables, expression).compile(tree)
    return Program(expression, node.type, node.fn, node.cost)


# --- the optional syntax ------------------------------------------------------------------


def rewrite_optional_syntax(text: str) -> str:
    """`x.?f` -> `x.__opt_select__("f")`, `x[?k]` -> `x.__opt_index__(k)`; strings and
    comments are left alone."""
    if "?" not in text:
        return text
    out: list[str] = []
    closers: list[str] = []
    i = 0
    while i < len(text):
        i = _rewrite_at(text, i, out, closers)
    return "".join(out)


def _rewrite_at(text: str, i: int, out: list[str], closers: list[str]) -> int:
    """Copies or rewrites what starts at `i`; returns where to go on."""
    c = text[i]
    if c in "\"'":
        end = _string_end(text, i)
    elif text.startswith("//", i):
        end = text.find("\n", i)
        end = len(text) if end < 0 else end
    elif text.startswith(".?", i):
        j = _skip_space(text, i + 2)
        k = j
        while k < len(text) and (text[k].isalnum() or text[k] == "_"):
            k += 1
        out.append(f'.{_OPT_SELECT}("{text[j:k]}")')
        return k
    elif c == "[":
        j = _skip_space(text, i + 1)
        if j < len(text) and text[j] == "?":
            out.append(f".{_OPT_INDEX}(")
            closers.append(")")
            return j + 1
        closers.append("]")
        end = i + 1
    elif c == "]" and closers:
        out.append(closers.pop())
        return i + 1
    else:
        end = i + 1
    out.append(text[i:end])
    return end


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _string_end(text: str, start: int) -> int:
    quote = text[start]
    triple = text.startswith(quote * 3, start)
    delimiter = quote * 3 if triple else quote
    i = start + len(delimiter)
    raw = start > 0 and text[start - 1] in "rR"
    while i < len(text):
        if text[i] == "\\" and not raw:
            i += 2
            continue
        if text.startswith(delimiter, i):
            return i + len(delimiter)
        i += 1
    return len(text)


# --- the compiler -------------------------------------------------------------------------


def _const(value: Any) -> Fn:
    return lambda _act: value


class _Compiler:
    def __init__(self, variables: frozenset[str], expression: str) -> None:
        self.variables = variables
        self.expression = expression
        self.scopes: list[str] = []

    def fail(self, tree: Any, message: str) -> CompileError:
        meta = getattr(tree, "meta", None)
        line = getattr(meta, "line", None) or getattr(tree, "line", None) or 1
        column = getattr(meta, "column", None) or getattr(tree, "column", None) or 1
        return CompileError(f"ERROR: <input>:{line}:{column}: {message}\n | {self.expression}")

    def compile(self, tree: Tree[Token]) -> _Node:
        method = getattr(self, f"_{tree.data}", None)
        if method is None:
            raise self.fail(tree, f"unsupported syntax '{tree.data}'")
        node: _Node = method(tree)
        return node

    # structure

    def _expr(self, tree: Tree[Token]) -> _Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])  # type: ignore[arg-type]
        cond, yes, no = (self.compile(c) for c in children)  # type: ignore[arg-type]
        c, y, n = cond.fn, yes.fn, no.fn

        def ternary(act: dict[str, Any]) -> Any:
            return y(act) if truthy(c(act)) else n(act)

        kind = yes.type if yes.type == no.type else "dyn"
        return _Node(ternary, kind, cond.cost + max(yes.cost, no.cost))

    def _conditionalor(self, tree: Tree[Token]) -> _Node:
        return self._logical(tree, want=True)

    def _conditionaland(self, tree: Tree[Token]) -> _Node:
        return self._logical(tree, want=False)

    def _logical(self, tree: Tree[Token], *, want: bool) -> _Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])  # type: ignore[arg-type]
        left, right = (self.compile(c) for c in children)  # type: ignore[arg-type]
        lf, rf = left.fn, right.fn

        def logical(act: dict[str, Any]) -> Any:
            # cel-go: a short-circuiting value on either side wins over an error on the other.
            try:
                first = lf(act)
            except CelError as exc:
                second = rf(act)
                if second is want:
                    return want
                raise exc from None
            if first is want:
                return want
            second = rf(act)
            if second is want:
                return want
            if isinstance(first, bool) and isinstance(second, bool):
                return not want
            raise no_such_overload()

        return _Node(logical, "bool", left.cost + right.cost)

    def _relation(self, tree: Tree[Token]) -> _Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])  # type: ignore[arg-type]
        op_tree, right_tree = children
        assert isinstance(op_tree, Tree)
        left = self.compile(op_tree.children[0])  # type: ignore[arg-type]
        right = self.compile(right_tree)  # type: ignore[arg-type]
        lf, rf = left.fn, right.fn
        op = op_tree.data
        fn: Fn
        if op == "relation_eq":
            fn = lambda act: equals(lf(act), rf(act))  # noqa: E731
        elif op == "relation_ne":
            fn = lambda act: not equals(lf(act), rf(act))  # noqa: E731
        elif op == "relation_in":
            fn = lambda act: library.contains_in(lf(act), rf(act))  # noqa: E731
        elif op == "relation_lt":
            fn = lambda act: compare(lf(act), rf(act)) < 0  # noqa: E731
        elif op == "relation_le":
            fn = lambda act: compare(lf(act), rf(act)) <= 0  # noqa: E731
        elif op == "relation_gt":
            fn = lambda act: compare(lf(act), rf(act)) > 0  # noqa: E731
        else:
            fn = lambda act: compare(lf(act), rf(act)) >= 0  # noqa: E731
        return _Node(fn, "bool", left.cost + right.cost + 1)

    def _addition(self, tree: Tree[Token]) -> _Node:
        return self._binary(tree, {"addition_add": library.add, "addition_sub": library.subtract})

    def _multiplication(self, tree: Tree[Token]) -> _Node:
        return self._binary(
            tree,
            {
                "multiplication_mul": library.multiply,
                "multiplication_div": library.divide,
                "multiplication_mod": library.modulo,
            },
        )

    def _binary(self, tree: Tree[Token], ops: Mapping[str, Callable[[Any, Any], Any]]) -> _Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])  # type: ignore[arg-type]
        op_tree, right_tree = children
        assert isinstance(op_tree, Tree)
        left = self.compile(op_tree.children[0])  # type: ignore[arg-type]
        right = self.compile(right_tree)  # type: ignore[arg-type]
        lf, rf, op = left.fn, right.fn, ops[op_tree.data]
        kind = left.type if left.type == right.type and left.type in _ARITHMETIC else "dyn"
        if left.type in _ARITHMETIC and right.type in _ARITHMETIC and left.type != right.type:
            operands = f"({left.type}, {right.type})"
            raise self.fail(
                tree, f"found no matching overload for '{op_tree.data}' applied to '{operands}'"
            )
        return _Node(lambda act: op(lf(act), rf(act)), kind, left.cost + right.cost + 1)

    def _unary(self, tree: Tree[Token]) -> _Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])  # type: ignore[arg-type]
        op_tree, operand_tree = children
        operand = self.compile(operand_tree)  # type: ignore[arg-type]
        of = operand.fn
        assert isinstance(op_tree, Tree)
        if op_tree.data == "unary_not":

            def negation(act: dict[str, Any]) -> Any:
                value = of(act)
                if not isinstance(value, bool):
                    raise no_such_overload()
                return not value

            return _Node(negation, "bool", operand.cost + 1)
        return _Node(lambda act: library.negate(of(act)), operand.type, operand.cost + 1)

    def _member(self, tree: Tree[Token]) -> _Node:
        return self.compile(tree.children[0])  # type: ignore[arg-type]

    def _primary(self, tree: Tree[Token]) -> _Node:
        return self.compile(tree.children[0])  # type: ignore[arg-type]

    def _paren_expr(self, tree: Tree[Token]) -> _Node:
        return self.compile(tree.children[0])  # type: ignore[arg-type]

    # leaves

    def _literal(self, tree: Tree[Token]) -> _Node:
        token = tree.children[0]
        assert isinstance(token, Token)
        value, kind = _literal_value(token)
        return _Node(_const(value), kind, 0)

    def _ident(self, tree: Tree[Token]) -> _Node:
        name = str(tree.children[0])
        if name in self.scopes or name in self.variables:
            return _Node(lambda act: act[name], "dyn", 0)
        if name in library.TYPE_IDENTIFIERS:
            return _Node(_const(library.TYPE_IDENTIFIERS[name]), "type", 0)
        raise self.fail(tree.children[0], f"undeclared reference to '{name}' (in container '')")

    _dot_ident = _ident

    def _list_lit(self, tree: Tree[Token]) -> _Node:
        items = self._exprlist(tree.children[0]) if tree.children else []  # type: ignore[arg-type]
        fns = tuple(item.fn for item in items)
        kinds = {item.type for item in items}
        element = kinds.pop() if len(kinds) == 1 else "dyn"
        return _Node(
            lambda act: [f(act) for f in fns], f"list({element})", sum(i.cost for i in items) + 1
        )

    def _map_lit(self, tree: Tree[Token]) -> _Node:
        inits = tree.children[0].children if tree.children else []  # type: ignore[union-attr]
        nodes = [self.compile(c) for c in inits]  # type: ignore[arg-type]
        pairs = tuple((nodes[i].fn, nodes[i + 1].fn) for i in range(0, len(nodes), 2))

        def build(act: dict[str, Any]) -> Any:
            out: dict[Any, Any] = {}
            for key_fn, value_fn in pairs:
                key = key_fn(act)
                if isinstance(key, float | list | dict) or key is None:
                    raise CelError(f"unsupported key type: {type_name(key)}")
                if key in out:
                    raise CelError(f"Failed with repeated key: {format_key(key)}")
                out[key] = value_fn(act)
            return out

        return _Node(build, "map", sum(n.cost for n in nodes) + 1)

    def _exprlist(self, tree: Tree[Token] | None) -> list[_Node]:
        if tree is None:
            return []
        return [self.compile(c) for c in tree.children]  # type: ignore[arg-type]

    def _member_object(self, tree: Tree[Token]) -> _Node:
        raise self.fail(tree, "message construction is not supported in device selectors")

    # selection, indexing, calls

    def _member_dot(self, tree: Tree[Token]) -> _Node:
        target_tree, field = tree.children
        name = str(field)
        qualified = self._qualified_name(target_tree)  # type: ignore[arg-type]
        if qualified is not None and f"{qualified}.{name}" in self.variables:
            full = f"{qualified}.{name}"
            return _Node(lambda act: act[full], "dyn", 0)
        target = self.compile(target_tree)  # type: ignore[arg-type]
        tf = target.fn

        def select(act: dict[str, Any]) -> Any:
            value = tf(act)
            if isinstance(value, Mapping):
                return map_lookup(value, name)
            if isinstance(value, OptionalValue):
                if not value.has_value:
                    return NONE
                inner = value.value
                if isinstance(inner, Mapping):
                    return OptionalValue(inner[name]) if name in inner else NONE
            raise CelError(f"no such key: {name}")

        return _Node(select, "dyn", target.cost + 1)

    def _member_index(self, tree: Tree[Token]) -> _Node:
        target = self.compile(tree.children[0])  # type: ignore[arg-type]
        index = self.compile(tree.children[1])  # type: ignore[arg-type]
        tf, xf = target.fn, index.fn

        def lookup(act: dict[str, Any]) -> Any:
            return _index(tf(act), xf(act))

        return _Node(lookup, "dyn", target.cost + index.cost + 1)

    def _ident_arg(self, tree: Tree[Token]) -> _Node:
        name = str(tree.children[0])
        args_tree = tree.children[1] if len(tree.children) > 1 else None
        if name == "has":
            return self._has(tree, args_tree)  # type: ignore[arg-type]
        args = self._exprlist(args_tree)  # type: ignore[arg-type]
        fn = library.GLOBALS.get(name)
        if fn is None:
            raise self.fail(tree.children[0], f"undeclared reference to '{name}' (in container '')")
        return self._call(name, fn, args, tree)

    _dot_ident_arg = _ident_arg

    def _member_dot_arg(self, tree: Tree[Token]) -> _Node:
        target_tree, method = tree.children[0], str(tree.children[1])
        args_tree = tree.children[2] if len(tree.children) > 2 else None
        namespace = self._qualified_name(target_tree)  # type: ignore[arg-type]
        if namespace == "cel" and method == "bind":
            return self._bind(tree, args_tree)  # type: ignore[arg-type]
        if method in _MACROS and args_tree is not None:
            return self._macro(tree, target_tree, method, args_tree)  # type: ignore[arg-type]
        if namespace is not None and f"{namespace}.{method}" in library.GLOBALS:
            args = self._exprlist(args_tree)  # type: ignore[arg-type]
            full = f"{namespace}.{method}"
            return self._call(full, library.GLOBALS[full], args, tree)
        target = self.compile(target_tree)  # type: ignore[arg-type]
        args = self._exprlist(args_tree)  # type: ignore[arg-type]
        if method == _OPT_SELECT:
            return self._optional_select(target, args)
        if method == _OPT_INDEX:
            return self._optional_index(target, args)
        fn = library.MEMBERS.get(method)
        if fn is None:
            raise self.fail(
                tree.children[1], f"undeclared reference to '{method}' (in container '')"
            )
        return self._call(method, fn, [target, *args], tree)

    def _qualified_name(self, tree: Tree[Token]) -> str | None:
        """`a.b.c` as a dotted name when it is a chain of plain identifiers that no scope
        or variable claims (namespaces such as `sets`, `cel`, `optional`)."""
        node: Any = tree
        while (
            isinstance(node, Tree)
            and node.data in ("member", "primary")
            and len(node.children) == 1
        ):
            node = node.children[0]
        if isinstance(node, Tree) and node.data in ("ident", "dot_ident"):
            name = str(node.children[0])
            if name in self.scopes or name in self.variables:
                return None
            return name
        if isinstance(node, Tree) and node.data == "member_dot":
            inner = self._qualified_name(node.children[0])
            return None if inner is None else f"{inner}.{node.children[1]}"
        return None

    def _call(self, name: str, fn: library.Function, args: Sequence[_Node], tree: Any) -> _Node:
        fns = tuple(a.fn for a in args)
        cost = sum(a.cost for a in args) + 1
        kind = library.RESULT_TYPES.get(name, "dyn")
        if (
            name in ("size", "contains", "startsWith", "endsWith")
            and args
            and args[0].type == "int"
        ):
            raise self.fail(tree, f"found no matching overload for '{name}' applied to '(int)'")
        if len(fns) == 1:
            (f0,) = fns
            return _Node(lambda act: _invoke(fn, f0(act)), kind, cost)
        if len(fns) == 2:
            f0, f1 = fns
            return _Node(lambda act: _invoke(fn, f0(act), f1(act)), kind, cost)
        return _Node(lambda act: _invoke(fn, *(f(act) for f in fns)), kind, cost)

    def _optional_select(self, target: _Node, args: Sequence[_Node]) -> _Node:
        tf, key_fn = target.fn, args[0].fn

        def select(act: dict[str, Any]) -> Any:
            value, key = tf(act), key_fn(act)
            if isinstance(value, OptionalValue):
                if not value.has_value:
                    return NONE
                value = value.value
            if isinstance(value, Mapping):
                return OptionalValue(value[key]) if key in value else NONE
            raise CelError(f"no such key: {key}")

        return _Node(select, "optional_type", target.cost + 1)

    def _optional_index(self, target: _Node, args: Sequence[_Node]) -> _Node:
        tf, key_fn = target.fn, args[0].fn

        def index(act: dict[str, Any]) -> Any:
            value, key = tf(act), key_fn(act)
            if isinstance(value, OptionalValue):
                if not value.has_value:
                    return NONE
                value = value.value
            try:
                return OptionalValue(_index(value, key, default=False))
            except CelError as exc:
                if str(exc).startswith(("no such key", "index out of range")):
                    return NONE
                raise

        return _Node(index, "optional_type", target.cost + 1)

    # macros

    def _has(self, tree: Tree[Token], args_tree: Tree[Token] | None) -> _Node:
        args = args_tree.children if args_tree is not None else []
        selection = _unwrap(args[0]) if len(args) == 1 else None
        if not isinstance(selection, Tree) or selection.data != "member_dot":
            raise self.fail(tree, "invalid argument to has() macro")
        target = self.compile(selection.children[0])
        name, tf = str(selection.children[1]), target.fn

        def has(act: dict[str, Any]) -> bool:
            value = tf(act)
            if isinstance(value, Mapping):
                return name in value
            raise CelError("invalid type for field selection.")

        return _Node(has, "bool", target.cost + 1)

    def _bind(self, tree: Tree[Token], args_tree: Tree[Token] | None) -> _Node:
        args = args_tree.children if args_tree is not None else []
        var = _identifier(args[0]) if len(args) == 3 else None
        if var is None:
            raise self.fail(tree, "cel.bind() variable name must be a simple identifier")
        init = self.compile(args[1])  # type: ignore[arg-type]
        self.scopes.append(var)
        try:
            body = self.compile(args[2])  # type: ignore[arg-type]
        finally:
            self.scopes.pop()
        inf, bf = init.fn, body.fn

        def bind(act: dict[str, Any]) -> Any:
            saved = act.get(var, _UNSET)
            act[var] = inf(act)
            try:
                return bf(act)
            finally:
                _restore(act, var, saved)

        return _Node(bind, body.type, init.cost + body.cost)

    def _macro(
        self, tree: Tree[Token], target_tree: Tree[Token], name: str, args_tree: Tree[Token]
    ) -> _Node:
        args = list(args_tree.children)
        variables = 2 if name in _TWO_VARIABLE or (name in _ONE_OR_TWO and len(args) == 3) else 1
        names = [_identifier(a) for a in args[:variables]]
        rest = args[variables:]
        if (
            any(n is None for n in names)
            or len(rest) not in (1, 2)
            or (len(rest) == 2 and name not in _FILTERING)
        ):
            raise self.fail(tree, f"{name}() variable names must be simple identifiers")
        bound = [n for n in names if n is not None]
        target = self.compile(target_tree)
        self.scopes.extend(bound)
        try:
            guard = self.compile(rest[0]) if len(rest) == 2 else None  # type: ignore[arg-type]
            body = self.compile(rest[-1])  # type: ignore[arg-type]
        finally:
            del self.scopes[-len(bound) :]
        step_cost = body.cost + (guard.cost if guard else 0) + 2
        builder = _MACRO_BUILDERS[name]
        fn = builder(target.fn, bound, body.fn, guard.fn if guard else None, step_cost)
        kind = "bool" if name in ("all", "exists", "exists_one", "existsOne") else "dyn"
        return _Node(fn, kind, target.cost + 1)


_TWO_VARIABLE: Final = frozenset({"transformList", "transformMap"})
_ONE_OR_TWO: Final = frozenset({"all", "exists", "existsOne", "exists_one"})
_FILTERING: Final = frozenset({"map", "transformList", "transformMap"})
_ARITHMETIC: Final = frozenset({"int", "uint", "double"})


def _integer(text: str) -> int:
    return int(text, 0) if "x" in text.lower() else int(text)


_LITERALS: Final[dict[str, tuple[Callable[[Token], Any], str]]] = {
    "INT_LIT": (lambda t: check_int(_integer(t.value)), "int"),
    "UINT_LIT": (lambda t: Uint(_integer(t.value[:-1])), "uint"),
    "FLOAT_LIT": (lambda t: float(t.value), "double"),
    "STRING_LIT": (lambda t: str(celstr(t)), "string"),
    "MLSTRING_LIT": (lambda t: str(celstr(t)), "string"),
    "BYTES_LIT": (lambda t: bytes(celbytes(t)), "bytes"),
    "BOOL_LIT": (lambda t: t.value == "true", "bool"),
    "NULL_LIT": (lambda _t: None, "null_type"),
}


def _literal_value(token: Token) -> tuple[Any, str]:
    """A literal token's value and CEL type."""
    convert, kind = _LITERALS[token.type]
    return convert(token), kind


_UNSET: Final = object()


def _restore(act: dict[str, Any], var: str, saved: Any) -> None:
    if saved is _UNSET:
        act.pop(var, None)
    else:
        act[var] = saved


def _unwrap(tree: Any) -> Any:
    node = tree
    while (
        isinstance(node, Tree)
        and len(node.children) == 1
        and node.data
        in (
            "expr",
            "conditionalor",
            "conditionaland",
            "relation",
            "addition",
            "multiplication",
            "unary",
            "member",
            "primary",
        )
    ):
        node = node.children[0]
    return node


def _identifier(tree: Any) -> str | None:
    node = _unwrap(tree)
    if isinstance(node, Tree) and node.data == "ident":
        return str(node.children[0])
    return None


def _invoke(fn: library.Function, *args: Any) -> Any:
    for arg in args:
        if isinstance(arg, CelError):  # pragma: no cover - errors are raised, never passed
            raise arg
    try:
        return fn(*args)
    except CelError:
        raise
    except TypeError:
        raise no_such_overload() from None


def _index(value: Any, key: Any, *, default: bool = True) -> Any:
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
        saved = [act.get(n, _UNSET) for n in names]
        try:
            for values in _pairs(container, two):
                run_state.spend(step_cost)
                act.update(zip(names, values, strict=True))
                if not visit(body, act):
                    break
        finally:
            for var, value in zip(names, saved, strict=True):
                _restore(act, var, value)

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


_MACRO_BUILDERS: Final[dict[str, MacroBuilder]] = {
    "all": _all,
    "exists": _exists,
    "exists_one": _exists_one,
    "existsOne": _exists_one,
    "map": _map,
    "transformList": _map,
    "filter": _filter,
    "transformMap": _transform_map,
}
