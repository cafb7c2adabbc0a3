"""Terminal-safe text for the tables: values read from the cluster (a Lease holderIdentity,
an event note) may hold newlines or ESC sequences; they are shown escaped (`\\n`, `\\x1b`),
never written raw to the terminal."""

from __future__ import annotations


def printable(text: str) -> str:
    """`text` with every non-printable character shown as a Go-style escape."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
    if char in named:
        return named[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
