"""`kubesched.server.components.build` for the server's unit tests: a connection to nowhere
(nothing is sent: the tests read what was built) and the `components` fixture that builds a
profile's plugins."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kubesched.config import load_config
from kubesched.kube.connection import Connection
from kubesched.server.components import Components, build


class TokenConfiguration:
    async def get_api_key_with_prefix(self, name: str) -> str:
        return "Bearer unused"


def unused_connection() -> Connection:
    """A connection whose API server is never contacted."""
    return Connection("https://127.0.0.1:1", False, TokenConfiguration())


@pytest.fixture
async def components(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Components]:
    """The components of a config with one profile `s` whose `plugins:` is the YAML flow
    text `request.param` (parametrize with `indirect=True`); its clients closed after."""
    path = tmp_path / "config.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        f"profiles:\n- schedulerName: s\n  plugins: {request.param}\n"
    )
    loaded = load_config([f"--config={path}"], environ={}, namespace_file=tmp_path / "none")
    built = build(loaded.config, connection=unused_connection())
    yield built
    for client in built.clients():
        await client.close()
