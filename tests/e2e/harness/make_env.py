"""The environment of a `make` a user types at a shell, for tests that run make targets from
inside `make test`: without the parent make's MAKELEVEL and flags, which would turn make's own
messages into a sub-make's (`make[1]: ***`) and pass its options down."""

from __future__ import annotations

import os

_PARENT_MAKE = frozenset({"MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES"})


def typed_make_env() -> dict[str, str]:
    """This process's environment without what a parent make put there."""
    return {key: value for key, value in os.environ.items() if key not in _PARENT_MAKE}
