"""Where the builder keeps what it downloads and builds."""

from __future__ import annotations

from pathlib import Path

from kubesched.localcluster.paths import cache_dir


def cache_root() -> Path:
    """`~/.cache/kubesched/image` (or under $KUBESCHED_CACHE_DIR): downloads and builds."""
    return cache_dir() / "image"
