"""Where the local control plane keeps its binaries and the dev cluster its state."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_ENV = "KUBESCHED_CACHE_DIR"


def cache_dir() -> Path:
    """`$KUBESCHED_CACHE_DIR`, else `$XDG_CACHE_HOME/kubesched`, else `~/.cache/kubesched`."""
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "kubesched"


def bin_dir() -> Path:
    """The folder holding one sub-folder of built binaries per component and version."""
    return cache_dir() / "bin"


def dev_cluster_dir() -> Path:
    """The folder of `kubesched dev-cluster up`: its state file, workdir and kubeconfig."""
    return cache_dir() / "dev-cluster"
