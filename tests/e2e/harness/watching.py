"""Watch one pod in a background thread and keep every state the API server sent, for
assertions about what a pod went through (e.g. a `nominatedNodeName` set only for a moment)."""

from __future__ import annotations

import json
import ssl
import threading
import urllib.parse
import urllib.request
from types import TracebackType
from typing import Any, Self

from tests.e2e.harness.api import ApiClient

WATCH_SECONDS = 60


class PodWatch:
    """`with PodWatch(api, namespace, name) as seen: ...`; `seen.states` holds the pod's
    states in order (ADDED and MODIFIED), from before it exists until the block ends.

    The block's end does not wait for the watch: closing a response another thread is
    reading waits for that read (until the next event or the watch's timeout, up to a
    minute), so the thread is left to end with its watch (a daemon) and the states are
    frozen at the block's end."""

    def __init__(self, api: ApiClient, namespace: str, name: str) -> None:
        query = urllib.parse.urlencode(
            {
                "watch": "1",
                "fieldSelector": f"metadata.name={name}",
                "timeoutSeconds": str(WATCH_SECONDS),
            }
        )
        self._url = f"{api.server}/api/v1/namespaces/{namespace}/pods?{query}"
        self._api = api
        self._seen: list[dict[str, Any]] = []
        self._frozen: list[dict[str, Any]] | None = None
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        assert self._started.wait(10), "the watch did not start"
        return self

    def __exit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self._frozen = list(self._seen)

    @property
    def states(self) -> list[dict[str, Any]]:
        return self._seen if self._frozen is None else self._frozen

    def _run(self) -> None:
        request = urllib.request.Request(self._url)
        request.add_header("Authorization", f"Bearer {self._api._token}")
        context: ssl.SSLContext = self._api._ssl
        try:
            with urllib.request.urlopen(
                request, timeout=WATCH_SECONDS + 5, context=context
            ) as reply:
                self._started.set()
                for line in reply:
                    if self._frozen is not None:
                        return
                    event = json.loads(line)
                    if event.get("type") in ("ADDED", "MODIFIED"):
                        self._seen.append(event["object"])
        except (OSError, ValueError):
            return  # the watch ended or broke: what was seen stays
        finally:
            self._started.set()

    def nominations(self) -> list[tuple[str, str]]:
        """(nominatedNodeName, nodeName) of every state that had a nomination."""
        return [
            (state["status"]["nominatedNodeName"], state["spec"].get("nodeName", ""))
            for state in self.states
            if state.get("status", {}).get("nominatedNodeName")
        ]
