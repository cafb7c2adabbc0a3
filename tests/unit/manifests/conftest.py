"""Fixture `build(*flags, **ManifestOptions fields)`: the objects `kubesched manifests` makes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from manifests_helpers import Build, Objects, config_for

from kubesched.manifests import ManifestOptions, build_manifests


@pytest.fixture
def build(tmp_path: Path) -> Build:
    """`build(*flags, **ManifestOptions fields)` -> the generated objects."""

    def run(*argv: str, **options: Any) -> Objects:
        manifest_options = ManifestOptions(**options)
        config = config_for(argv, namespace=manifest_options.namespace, tmp_path=tmp_path)
        return build_manifests(config, manifest_options)

    return run
