"""Fixtures `build(*flags, **ManifestOptions fields)`: the objects `kubesched manifests` makes;
`helm`: the helm command the chart's tests render it with."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.localcluster import ensure_helm
from kubesched.manifests import ManifestOptions, build_manifests
from tests.unit.manifests.manifests_helpers import Build, Objects, config_for


@pytest.fixture
def build(tmp_path: Path) -> Build:
    """`build(*flags, **ManifestOptions fields)` -> the generated objects."""

    def run(*argv: str, **options: Any) -> Objects:
        manifest_options = ManifestOptions(**options)
        config = config_for(argv, namespace=manifest_options.namespace, tmp_path=tmp_path)
        return build_manifests(config, manifest_options)

    return run


@pytest.fixture(scope="session")
def helm() -> Path:
    """The helm command, built once from the Go module proxy and cached (or reused)."""
    return ensure_helm()
