"""Helpers for the configuration tests: write a config file, load a command line."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest

from kubesched.config import ConfigError, LoadResult, load_config
from kubesched.config.args_check import IN_TREE_ARGS

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

WriteFile = Callable[[str], str]
Load = Callable[..., LoadResult]
LoadErrors = Callable[..., tuple[str, ...]]


@pytest.fixture
def write_file(tmp_path: Path) -> WriteFile:
    """Write YAML (dedented) to a fresh file and return its path."""
    counter = iter(range(1_000_000))

    def write(text: str) -> str:
        path = tmp_path / f"config-{next(counter)}.yaml"
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return str(path)

    return write


@pytest.fixture
def write_config(write_file: WriteFile) -> WriteFile:
    """Write a KubeSchedulerConfiguration v1 body (apiVersion and kind added)."""
    return lambda body: write_file(HEADER + textwrap.dedent(body))


@pytest.fixture
def load(tmp_path: Path) -> Load:
    """load_config outside a cluster: no POD_NAMESPACE, no service account file."""

    def run(
        argv: Sequence[str],
        *,
        environ: Mapping[str, str] | None = None,
        namespace_file: Path | None = None,
    ) -> LoadResult:
        return load_config(
            argv,
            environ=environ or {},
            namespace_file=namespace_file or tmp_path / "no-such-namespace-file",
            args_checks=IN_TREE_ARGS,  # as the commands load it
        )

    return run


@pytest.fixture
def load_errors(load: Load) -> LoadErrors:
    """The errors that loading `argv` raises (the test fails if it loads)."""

    def run(argv: Sequence[str], **kwargs: object) -> tuple[str, ...]:
        with pytest.raises(ConfigError) as caught:
            load(argv, **kwargs)
        assert str(caught.value) == "\n".join(caught.value.errors)
        assert all("\n" not in error for error in caught.value.errors)
        return caught.value.errors

    return run
