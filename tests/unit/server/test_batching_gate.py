"""`--feature-gates=OpportunisticBatching=false` turns kube-scheduler's batching off in every
profile; without the flag it is on (beta, on by default in v1.37), and the gate is one
kubesched acts on (no "accepted; no switch" notice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.config import load_config
from kubesched.server.components import build
from tests.unit.server.conftest import unused_connection


@pytest.mark.parametrize(
    ("gates", "batching"),
    [
        ((), True),
        (("--feature-gates=OpportunisticBatching=true",), True),
        (("--feature-gates=OpportunisticBatching=false",), False),
    ],
)
async def test_the_gate_gives_each_profile_a_batch_or_none(
    tmp_path: Path, gates: tuple[str, ...], batching: bool
) -> None:
    loaded = load_config(
        ["--scheduler-name=s", *gates], environ={}, namespace_file=tmp_path / "none"
    )
    assert not [notice for notice in loaded.notices if "OpportunisticBatching" in notice]
    components = build(loaded.config, connection=unused_connection())
    try:
        assert [fw.batch is not None for fw in components.frameworks.values()] == [batching]
    finally:
        for client in (
            components.client,
            components.election_client,
            components.event_client,
            components.auth_client,
        ):
            await client.close()
