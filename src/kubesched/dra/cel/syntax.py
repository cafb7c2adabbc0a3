"""What the compiler needs of CEL's syntax beyond celpy's parse tree: the optional-value
syntax (`a.?b`, `m[?k]`) celpy's grammar lacks, rewritten into calls before parsing; the
values and types of literal tokens; plain identifiers seen through the precedence levels."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from celpy.evaluation import celbytes, celstr
from lark import Token, Tree

from kubesched.dra.cel.values import Uint, check_int

OPT_SELECT: Final = "__opt_select__"
"""The method `x.?f` is rewritten to call (`x.__opt_select__("f")`)."""
OPT_INDEX: Final = "__opt_index__"
"""The method `x[?k]` is rewritten to call (`x.__opt_index__(k)`)."""


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
        out.append(f'.{OPT_SELECT}("{text[j:k]}")')
        return k
    elif c == "[":
        j = _skip_space(text, i + 1)
        if j < len(text) and text[j] == "?":
            out.append(f".{OPT_INDEX}(")
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


def literal_value(token: Token) -> tuple[Any, str]:
    """A literal token's value and CEL type."""
    convert, kind = _LITERALS[token.type]
    return convert(token), kind


def unwrap(tree: object) -> object:
    """The subtree a chain of one-child precedence levels (`expr` -> ... -> `primary`) stands
    for."""
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


def identifier(tree: object) -> str | None:
    """The name of a plain identifier expression, else None."""
    node = unwrap(tree)
    if isinstance(node, Tree) and node.data == "ident":
        return str(node.children[0])
    return None
