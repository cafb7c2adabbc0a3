"""One API client for a one-shot command (`doctor`, `leases`), closed when done."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from kubesched.kube.client import KubeClient
from kubesched.kube.connection import load_connection

REQUEST_TIMEOUT_SECONDS = 15.0


@asynccontextmanager
async def open_client(
    *, kubeconfig: str = "", master: str = "", context: str | None = None
) -> AsyncIterator[KubeClient]:
    """Connect like kubectl (kubeconfig, in-cluster, KUBECONFIG) and close at the end.

    Raises `kubesched.kube.connection.ConnectionConfigError` when no connection is found.
    """
    connection = await load_connection(kubeconfig=kubeconfig, master=master, context=context)
    client = KubeClient(connection, timeout=REQUEST_TIMEOUT_SECONDS)
    try:
        yield client
    finally:
        await client.close()
