"""Interning of hashable keys into small ints: a nested tuple would be hashed again on every
lookup, an int is not. Ids are never reused, so forgetting a table only costs recomputation,
never a mix-up."""

from __future__ import annotations

import itertools
from collections.abc import Hashable

MAX_INTERNED_KEYS = 4096
"""A table is emptied when it holds this many keys (bounds its memory)."""

_ids = itertools.count(1)


class KeyTable:
    """Interns full memo keys into unique ints (one table per framework)."""

    def __init__(self) -> None:
        self._ids: dict[Hashable, int] = {}

    def id_of(self, key: Hashable) -> int:
        found = self._ids.get(key)
        if found is None:
            if len(self._ids) >= MAX_INTERNED_KEYS:
                self._ids.clear()
            found = self._ids[key] = next(_ids)
        return found
