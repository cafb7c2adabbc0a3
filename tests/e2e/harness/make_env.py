"""`make` run from tests as a user types it at a shell, also from inside `make test`: without
the parent make's MAKELEVEL and flags, which would turn make's own messages into a sub-make's
(`make[1]: ***`) and pass its options down."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
_PARENT_MAKE = frozenset({"MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES"})


def typed_make_env() -> dict[str, str]:
    """This process's environment without what a parent make put there."""
    return {key: value for key, value in os.environ.items() if key not in _PARENT_MAKE}


def run_make(argv: Sequence[str], *, timeout: float) -> subprocess.CompletedProcess[str]:
    """`argv` (a `make ...` command line) in the repository's root, its output captured."""
    return subprocess.run(
        list(argv),
        cwd=ROOT,
        env=typed_make_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
