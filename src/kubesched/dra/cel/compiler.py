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

from collections.abc import Mapping, Sequence
from typing import Any, Final

from celpy.celparser import CELParseError, CELParser
from lark import Token, Tree
from lark.tree import Branch

from kubesched.dra.cel.compile_core import CompilerCore
from kubesched.dra.cel.evaluation import (
    MACRO_BUILDERS,
    UNSET,
    Function,
    index_value,
    invoke,
    restore,
)
from kubesched.dra.cel.functions import GLOBALS, MEMBERS, RESULT_TYPES
from kubesched.dra.cel.program import CompileError, Node, Program
from kubesched.dra.cel.syntax import (
    OPT_INDEX,
    OPT_SELECT,
    identifier,
    rewrite_optional_syntax,
    unwrap,
)
from kubesched.dra.cel.values import NONE, CelError, OptionalValue, map_lookup

_MACROS: Final = frozenset(
    {"all", "exists", "exists_one", "existsOne", "map", "filter", "transformList", "transformMap"}
)
_TWO_VARIABLE: Final = frozenset({"transformList", "transformMap"})
_ONE_OR_TWO: Final = frozenset({"all", "exists", "existsOne", "exists_one"})
_FILTERING: Final = frozenset({"map", "transformList", "transformMap"})


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


class _Compiler(CompilerCore):
    """Member selection, indexing, function calls and macros, over the core."""

    # selection, indexing, calls

    def _member_dot(self, tree: Tree[Token]) -> Node:
        target_tree, field = tree.children
        name = str(field)
        qualified = self._qualified_name(target_tree)
        if qualified is not None and f"{qualified}.{name}" in self.variables:
            full = f"{qualified}.{name}"
            return Node(lambda act: act[full], "dyn", 0)
        target = self.compile(target_tree)
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

        return Node(select, "dyn", target.cost + 1)

    def _member_index(self, tree: Tree[Token]) -> Node:
        target = self.compile(tree.children[0])
        index = self.compile(tree.children[1])
        tf, xf = target.fn, index.fn

        def lookup(act: dict[str, Any]) -> Any:
            return index_value(tf(act), xf(act))

        return Node(lookup, "dyn", target.cost + index.cost + 1)

    def _ident_arg(self, tree: Tree[Token]) -> Node:
        name = str(tree.children[0])
        args_tree = tree.children[1] if len(tree.children) > 1 else None
        if name == "has":
            return self._has(tree, args_tree)
        args = self._exprlist(args_tree)
        fn = GLOBALS.get(name)
        if fn is None:
            raise self.fail(tree.children[0], f"undeclared reference to '{name}' (in container '')")
        return self._call(name, fn, args, tree)

    _dot_ident_arg = _ident_arg

    def _member_dot_arg(self, tree: Tree[Token]) -> Node:
        target_tree, method = tree.children[0], str(tree.children[1])
        args_tree = tree.children[2] if len(tree.children) > 2 else None
        namespace = self._qualified_name(target_tree)
        if namespace == "cel" and method == "bind":
            return self._bind(tree, args_tree)
        if method in _MACROS and args_tree is not None:
            return self._macro(tree, target_tree, method, args_tree)
        if namespace is not None and f"{namespace}.{method}" in GLOBALS:
            args = self._exprlist(args_tree)
            full = f"{namespace}.{method}"
            return self._call(full, GLOBALS[full], args, tree)
        target = self.compile(target_tree)
        args = self._exprlist(args_tree)
        if method == OPT_SELECT:
            return self._optional_select(target, args)
        if method == OPT_INDEX:
            return self._optional_index(target, args)
        fn = MEMBERS.get(method)
        if fn is None:
            raise self.fail(
                tree.children[1], f"undeclared reference to '{method}' (in container '')"
            )
        return self._call(method, fn, [target, *args], tree)

    def _qualified_name(self, tree: Branch[Token]) -> str | None:
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

    def _call(self, name: str, fn: Function, args: Sequence[Node], tree: Any) -> Node:
        fns = tuple(a.fn for a in args)
        cost = sum(a.cost for a in args) + 1
        kind = RESULT_TYPES.get(name, "dyn")
        if (
            name in ("size", "contains", "startsWith", "endsWith")
            and args
            and args[0].type == "int"
        ):
            raise self.fail(tree, f"found no matching overload for '{name}' applied to '(int)'")
        if len(fns) == 1:
            (f0,) = fns
            return Node(lambda act: invoke(fn, f0(act)), kind, cost)
        if len(fns) == 2:
            f0, f1 = fns
            return Node(lambda act: invoke(fn, f0(act), f1(act)), kind, cost)
        return Node(lambda act: invoke(fn, *(f(act) for f in fns)), kind, cost)

    def _optional_select(self, target: Node, args: Sequence[Node]) -> Node:
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

        return Node(select, "optional_type", target.cost + 1)

    def _optional_index(self, target: Node, args: Sequence[Node]) -> Node:
        tf, key_fn = target.fn, args[0].fn

        def index(act: dict[str, Any]) -> Any:
            value, key = tf(act), key_fn(act)
            if isinstance(value, OptionalValue):
                if not value.has_value:
                    return NONE
                value = value.value
            try:
                return OptionalValue(index_value(value, key, default=False))
            except CelError as exc:
                if str(exc).startswith(("no such key", "index out of range")):
                    return NONE
                raise

        return Node(index, "optional_type", target.cost + 1)

    # macros

    def _has(self, tree: Tree[Token], args_tree: Branch[Token] | None) -> Node:
        args = self.arguments(args_tree)
        selection = unwrap(args[0]) if len(args) == 1 else None
        if not isinstance(selection, Tree) or selection.data != "member_dot":
            raise self.fail(tree, "invalid argument to has() macro")
        target = self.compile(selection.children[0])
        name, tf = str(selection.children[1]), target.fn

        def has(act: dict[str, Any]) -> bool:
            value = tf(act)
            if isinstance(value, Mapping):
                return name in value
            raise CelError("invalid type for field selection.")

        return Node(has, "bool", target.cost + 1)

    def _bind(self, tree: Tree[Token], args_tree: Branch[Token] | None) -> Node:
        args = self.arguments(args_tree)
        var = identifier(args[0]) if len(args) == 3 else None
        if var is None:
            raise self.fail(tree, "cel.bind() variable name must be a simple identifier")
        init = self.compile(args[1])
        self.scopes.append(var)
        try:
            body = self.compile(args[2])
        finally:
            self.scopes.pop()
        inf, bf = init.fn, body.fn

        def bind(act: dict[str, Any]) -> Any:
            saved = act.get(var, UNSET)
            act[var] = inf(act)
            try:
                return bf(act)
            finally:
                restore(act, var, saved)

        return Node(bind, body.type, init.cost + body.cost)

    def _macro(
        self, tree: Tree[Token], target_tree: Branch[Token], name: str, args_tree: Branch[Token]
    ) -> Node:
        args = list(self.arguments(args_tree))
        variables = 2 if name in _TWO_VARIABLE or (name in _ONE_OR_TWO and len(args) == 3) else 1
        names = [identifier(a) for a in args[:variables]]
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
            guard = self.compile(rest[0]) if len(rest) == 2 else None
            body = self.compile(rest[-1])
        finally:
            del self.scopes[-len(bound) :]
        step_cost = body.cost + (guard.cost if guard else 0) + 2
        builder = MACRO_BUILDERS[name]
        fn = builder(target.fn, bound, body.fn, guard.fn if guard else None, step_cost)
        kind = "bool" if name in ("all", "exists", "exists_one", "existsOne") else "dyn"
        return Node(fn, kind, target.cost + 1)
