"""The compiler's core: one method per rule of celpy's grammar for the operators (ternary,
`||`, `&&`, relations, arithmetic, unary), literals, identifiers and list and map literals,
each returning a `Node` (closure, static type, cost). Member selection, calls and macros
are `compiler`'s."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from lark import Token, Tree
from lark.tree import Branch

from kubesched.dra.cel import library
from kubesched.dra.cel.functions import TYPE_IDENTIFIERS
from kubesched.dra.cel.program import CompileError, Fn, Node
from kubesched.dra.cel.syntax import literal_value
from kubesched.dra.cel.values import (
    CelError,
    compare,
    equals,
    format_key,
    no_such_overload,
    truthy,
    type_name,
)

ARITHMETIC: Final = frozenset({"int", "uint", "double"})


def _const(value: Any) -> Fn:
    return lambda _act: value


class CompilerCore:
    """The expression grammar's precedence levels, operators, literals and identifiers;
    `compile` dispatches on each tree's rule name to the method `_<rule>`."""

    def __init__(self, variables: frozenset[str], expression: str) -> None:
        self.variables = variables
        self.expression = expression
        self.scopes: list[str] = []

    def fail(self, tree: object, message: str) -> CompileError:
        """cel-go's compile error at `tree`'s (or the token's) position."""
        meta = getattr(tree, "meta", None)
        line = getattr(meta, "line", None) or getattr(tree, "line", None) or 1
        column = getattr(meta, "column", None) or getattr(tree, "column", None) or 1
        return CompileError(f"ERROR: <input>:{line}:{column}: {message}\n | {self.expression}")

    def compile(self, tree: Branch[Token]) -> Node:
        """The node of a subtree; a rule the compiler does not know, or a token where the
        grammar puts a subtree, fails to compile."""
        tree = self.tree_of(tree)
        method = getattr(self, f"_{tree.data}", None)
        if method is None:
            raise self.fail(tree, f"unsupported syntax '{tree.data}'")
        node: Node = method(tree)
        return node

    def tree_of(self, node: Branch[Token]) -> Tree[Token]:
        """`node` as a subtree (a token there fails to compile)."""
        if isinstance(node, Tree):
            return node
        raise self.fail(node, f"unsupported syntax '{node.type}'")

    def arguments(self, node: Branch[Token] | None) -> list[Branch[Token]]:
        """The children of an argument or initializer list; none when it is absent."""
        return [] if node is None else self.tree_of(node).children

    # structure

    def _expr(self, tree: Tree[Token]) -> Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])
        cond, yes, no = (self.compile(c) for c in children)
        c, y, n = cond.fn, yes.fn, no.fn

        def ternary(act: dict[str, Any]) -> Any:
            return y(act) if truthy(c(act)) else n(act)

        kind = yes.type if yes.type == no.type else "dyn"
        return Node(ternary, kind, cond.cost + max(yes.cost, no.cost))

    def _conditionalor(self, tree: Tree[Token]) -> Node:
        return self._logical(tree, want=True)

    def _conditionaland(self, tree: Tree[Token]) -> Node:
        return self._logical(tree, want=False)

    def _logical(self, tree: Tree[Token], *, want: bool) -> Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])
        left, right = (self.compile(c) for c in children)
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

        return Node(logical, "bool", left.cost + right.cost)

    def _relation(self, tree: Tree[Token]) -> Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])
        op_tree, right_tree = children
        assert isinstance(op_tree, Tree)
        left = self.compile(op_tree.children[0])
        right = self.compile(right_tree)
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
        return Node(fn, "bool", left.cost + right.cost + 1)

    def _addition(self, tree: Tree[Token]) -> Node:
        return self._binary(tree, {"addition_add": library.add, "addition_sub": library.subtract})

    def _multiplication(self, tree: Tree[Token]) -> Node:
        return self._binary(
            tree,
            {
                "multiplication_mul": library.multiply,
                "multiplication_div": library.divide,
                "multiplication_mod": library.modulo,
            },
        )

    def _binary(self, tree: Tree[Token], ops: Mapping[str, Callable[[Any, Any], Any]]) -> Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])
        op_tree, right_tree = children
        assert isinstance(op_tree, Tree)
        left = self.compile(op_tree.children[0])
        right = self.compile(right_tree)
        lf, rf, op = left.fn, right.fn, ops[op_tree.data]
        kind = left.type if left.type == right.type and left.type in ARITHMETIC else "dyn"
        if left.type in ARITHMETIC and right.type in ARITHMETIC and left.type != right.type:
            operands = f"({left.type}, {right.type})"
            raise self.fail(
                tree, f"found no matching overload for '{op_tree.data}' applied to '{operands}'"
            )
        return Node(lambda act: op(lf(act), rf(act)), kind, left.cost + right.cost + 1)

    def _unary(self, tree: Tree[Token]) -> Node:
        children = tree.children
        if len(children) == 1:
            return self.compile(children[0])
        op_tree, operand_tree = children
        operand = self.compile(operand_tree)
        of = operand.fn
        assert isinstance(op_tree, Tree)
        if op_tree.data == "unary_not":

            def negation(act: dict[str, Any]) -> Any:
                value = of(act)
                if not isinstance(value, bool):
                    raise no_such_overload()
                return not value

            return Node(negation, "bool", operand.cost + 1)
        return Node(lambda act: library.negate(of(act)), operand.type, operand.cost + 1)

    def _member(self, tree: Tree[Token]) -> Node:
        return self.compile(tree.children[0])

    def _primary(self, tree: Tree[Token]) -> Node:
        return self.compile(tree.children[0])

    def _paren_expr(self, tree: Tree[Token]) -> Node:
        return self.compile(tree.children[0])

    # leaves

    def _literal(self, tree: Tree[Token]) -> Node:
        token = tree.children[0]
        assert isinstance(token, Token)
        value, kind = literal_value(token)
        return Node(_const(value), kind, 0)

    def _ident(self, tree: Tree[Token]) -> Node:
        name = str(tree.children[0])
        if name in self.scopes or name in self.variables:
            return Node(lambda act: act[name], "dyn", 0)
        if name in TYPE_IDENTIFIERS:
            return Node(_const(TYPE_IDENTIFIERS[name]), "type", 0)
        raise self.fail(tree.children[0], f"undeclared reference to '{name}' (in container '')")

    _dot_ident = _ident

    def _list_lit(self, tree: Tree[Token]) -> Node:
        items = self._exprlist(tree.children[0]) if tree.children else []
        fns = tuple(item.fn for item in items)
        kinds = {item.type for item in items}
        element = kinds.pop() if len(kinds) == 1 else "dyn"
        return Node(
            lambda act: [f(act) for f in fns], f"list({element})", sum(i.cost for i in items) + 1
        )

    def _map_lit(self, tree: Tree[Token]) -> Node:
        inits = self.arguments(tree.children[0]) if tree.children else []
        nodes = [self.compile(c) for c in inits]
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

        return Node(build, "map", sum(n.cost for n in nodes) + 1)

    def _exprlist(self, tree: Branch[Token] | None) -> list[Node]:
        return [self.compile(c) for c in self.arguments(tree)]

    def _member_object(self, tree: Tree[Token]) -> Node:
        raise self.fail(tree, "message construction is not supported in device selectors")
