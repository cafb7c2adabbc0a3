"""kubesched's side of the differential test: `kubesched explain`'s engine, in-process,
reading the same API server (GET only) with the very profiles kube-scheduler runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from kubesched.config import load_config
from kubesched.explain import Explanation, GetOnly, PodSource, explain_live
from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection
from kubesched.server.components import build_registry
from tests.e2e.harness.diff.profiles import ORACLE_PREFIX, write_config


class Engine:
    """Explains pods against the live cluster on its own event loop; `close()` after use."""

    def __init__(self, *, kubeconfig: Path, workdir: Path) -> None:
        path = write_config(
            workdir / "parity-kubesched.yaml", kubeconfig=kubeconfig, prefix=ORACLE_PREFIX
        )
        self.config = load_config(
            ["--config", str(path)], environ={}, namespace_file=workdir / "none"
        ).config
        self.registry = build_registry(self.config)
        self._loop = asyncio.new_event_loop()
        connection = self._loop.run_until_complete(load_connection(kubeconfig=str(kubeconfig)))
        self._client = KubeClient(connection, qps=2000, burst=4000)

    def explain(self, pod: dict[str, Any]) -> Explanation:
        """What kubesched decides for `pod` (an admitted, not yet created, pod object)."""
        source = PodSource(obj=pod)
        return self._loop.run_until_complete(
            explain_live(
                GetOnly(self._client), config=self.config, registry=self.registry, source=source
            )
        )

    def close(self) -> None:
        self._loop.run_until_complete(self._client.close())
        self._loop.close()
