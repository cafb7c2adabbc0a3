"""Placeholders that the chart generator puts into the manifests model's objects, and their
translation into Go template text after the objects are written as YAML.

The model (`kubesched.manifests`) builds every object from plain values. To make a template
of an object, the generator builds it with *tokens* instead of names (`@NAME@`, ...) and
with *markers* instead of the values a chart user chooses; the YAML of that object is then
rewritten line by line:

* a token anywhere in a scalar: `name: x-@NAME@` -> `name: "x-{{ include "kubesched.name" . }}"`
* `key: @@VALUE:expr@@`                -> `key: {{ expr }}`
* `key: @@BLOCK:expr@@`                -> `key:` + `{{- expr | nindent N }}` (YAML of expr)
* `key: @@INCLUDE:name@@`              -> `key:` + the YAML the named template writes
* `key: @@WITH:expr@@`                 -> the key only when `expr` is not empty
* `key: @@TEXT:expr@@`                 -> a literal block (`|`) holding the text of expr
* `- @@IF:cond@@` ... `- @@END@@`      -> list items kept only when `cond`
* `- @@ITEMS:expr@@`                   -> the items of the list `expr`, after those before it
"""

from __future__ import annotations

import re

TOKENS = {
    "@NS@": ".Release.Namespace",
    "@NAME@": 'include "kubesched.name" .',
    "@LNS@": 'include "kubesched.leaseNamespace" .',
    "@LEASE@": 'include "kubesched.leaseName" .',
}
_MARKER = re.compile(
    r"^(?P<indent>\s*)(?P<item>- )?(?P<key>[^:'\s][^:]*: )?'?@@(?P<kind>[A-Z]+):?(?P<expr>.*?)@@'?$"
)
_TOKEN = re.compile("|".join(re.escape(token) for token in TOKENS))
_SCALAR = re.compile(r"^(?P<head>\s*(?:- )?(?:[^:'\s][^:]*: )?)'?(?P<value>.*?)'?$")


def value(expr: str) -> str:
    """The marker of a scalar `{{ expr }}`."""
    return f"@@VALUE:{expr}@@"


def block(expr: str) -> str:
    """The marker of a mapping or list: the YAML of `expr`."""
    return f"@@BLOCK:{expr}@@"


def included(name: str) -> str:
    """The marker of a mapping or list that the named template writes as YAML."""
    return f"@@INCLUDE:{name}@@"


def optional(expr: str) -> str:
    """The marker of a key present only when `expr` (a value) is not empty."""
    return f"@@WITH:{expr}@@"


def text(expr: str) -> str:
    """The marker of a multi-line string: the text of `expr` as a literal block."""
    return f"@@TEXT:{expr}@@"


def when(cond: str) -> str:
    """The list item opening items kept only when `cond`; close it with `END`."""
    return f"@@IF:{cond}@@"


def items(expr: str) -> str:
    """The list item standing for the items of the list `expr` (none when it is empty)."""
    return f"@@ITEMS:{expr}@@"


END = "@@END@@"


def to_template(yaml_text: str) -> str:
    """Rewrite the YAML of an object holding tokens and markers into Go template text."""
    lines: list[str] = []
    for line in yaml_text.splitlines():
        lines.extend(_line(line))
    return "\n".join(lines) + "\n"


def _line(line: str) -> list[str]:
    marker = _MARKER.match(line)
    if marker:
        return _marker_lines(marker)
    if _TOKEN.search(line):
        scalar = _SCALAR.match(line)
        assert scalar is not None  # the pattern matches any line
        rendered = _TOKEN.sub(lambda found: "{{ " + TOKENS[found.group(0)] + " }}", scalar["value"])
        return [f'{scalar["head"]}"{rendered}"']
    return [line]


def _marker_lines(found: re.Match[str]) -> list[str]:
    indent, key, expr, kind = found["indent"], found["key"] or "", found["expr"], found["kind"]
    item = found["item"] or ""
    head, inner = f"{indent}{item}{key.rstrip()}", len(indent) + len(item) + 2
    nested = " " * inner
    forms = {
        "IF": [f"{indent}{{{{- if {expr} }}}}"],
        "END": [f"{indent}{{{{- end }}}}"],
        "VALUE": [f"{indent}{item}{key}{{{{ {expr} }}}}"],
        "BLOCK": [head, f"{nested}{{{{- {expr} | toYaml | nindent {inner} }}}}"],
        "INCLUDE": [head, f'{nested}{{{{- include "{expr}" . | nindent {inner} }}}}'],
        "TEXT": [f"{head} |", f"{nested}{{{{- {expr} | nindent {inner} }}}}"],
        "ITEMS": [
            f"{indent}{{{{- with {expr} }}}}",
            f"{indent}{{{{- toYaml . | nindent {len(indent)} }}}}",
            f"{indent}{{{{- end }}}}",
        ],
        "WITH": [
            f"{indent}{{{{- with {expr} }}}}",
            head,
            f"{nested}{{{{- toYaml . | nindent {inner} }}}}",
            f"{indent}{{{{- end }}}}",
        ],
    }
    if kind not in forms:
        raise ValueError(f"unknown chart marker {kind!r} in {found.group(0)!r}")
    return forms[kind]
