"""docs/architecture.md's table of where upstream's code lives here: every kubesched path it
names exists, and every kube-scheduler v1.37.2 path exists in the Go module cache when the
cache holds that release (the local control plane is built from it)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "src" / "kubesched"
SECTION = "## Where upstream's code lives here"
KUBERNETES = "k8s.io/kubernetes@v1.37.2"
STAGING = "staging/src/k8s.io/"
STAGING_VERSION = "v0.37.2"


def _rows() -> list[tuple[list[str], list[str]]]:
    """(upstream paths, kubesched paths) per row of the table (group rows have none)."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or len(cells) != 3 or cells[0] in {"Upstream", "---"}:
            continue
        upstream, ours = (re.findall(r"`([^`]+)`", cell) for cell in cells[:2])
        rows.append((upstream, ours))
    return rows


def _module_cache() -> Path:
    return Path(os.environ.get("GOMODCACHE") or Path.home() / "go" / "pkg" / "mod")


def _in_module_cache(path: str) -> Path | None:
    """Where `path` of the kubernetes repository is in the module cache (None: not ours)."""
    if path.startswith("sigs.k8s.io/"):
        return None  # scheduler-plugins: not in the cache (its own build is the oracle)
    if path.startswith(STAGING):
        module, _, rest = path.removeprefix(STAGING).partition("/")
        return _module_cache() / "k8s.io" / f"{module}@{STAGING_VERSION}" / rest
    return _module_cache() / KUBERNETES / path


def test_the_table_covers_core_queue_cache_plugins_and_dra() -> None:
    rows = _rows()
    upstream = {path for paths, _ in rows for path in paths}
    assert len(rows) > 50
    for path in [
        "pkg/scheduler/schedule_one.go",
        "pkg/scheduler/framework/runtime/framework.go",
        "pkg/scheduler/backend/queue/scheduling_queue.go",
        "pkg/scheduler/backend/cache/cache.go",
        "staging/src/k8s.io/dynamic-resource-allocation/structured/",
        "staging/src/k8s.io/dynamic-resource-allocation/cel/",
    ]:
        assert path in upstream


def test_every_kubesched_path_exists() -> None:
    missing = [path for _, paths in _rows() for path in paths if not (PACKAGE / path).exists()]
    assert not missing, f"docs/architecture.md names kubesched paths that do not exist: {missing}"


def test_every_upstream_path_exists_in_the_release() -> None:
    if not (_module_cache() / KUBERNETES).is_dir():
        pytest.skip(f"the Go module cache holds no {KUBERNETES}")
    paths = [path for paths, _ in _rows() for path in paths]
    located = [(path, _in_module_cache(path)) for path in paths]
    missing = [path for path, where in located if where is not None and not where.exists()]
    assert not missing, f"not in kubernetes v1.37.2: {missing}"


def test_each_in_tree_plugin_folder_has_a_row() -> None:
    ours = {path.rstrip("/") for _, paths in _rows() for path in paths}
    folders = {
        f"plugins/{folder.name}"
        for folder in (PACKAGE / "plugins").iterdir()
        if (folder / "__init__.py").exists()
    }
    assert folders <= ours, f"plugin folders without a row: {sorted(folders - ours)}"
