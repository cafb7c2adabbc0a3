"""Go's formatting of values in kube-scheduler's messages, so kubesched's texts match them."""

from __future__ import annotations

import json


def go_quote(text: str) -> str:
    """Go's `%q` of a name or short text (double-quoted, escaped as JSON escapes it)."""
    return json.dumps(text, ensure_ascii=False)
