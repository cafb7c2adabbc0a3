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

from harness.api import ApiClient

WATCH_SECONDS = 60


class PodWatch:
    """`with PodWatch(api, namespace, name) as seen: ...`; `seen.states` holds the pod's
    states in order (ADDED and MODIFIED), from before it exists until the block ends."""

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
        self.states: list[dict[str, Any]] = []
        self._reply: Any = None
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
        if self._reply is not None:
            self._reply.close()
        self._thread.join(5)

    def _run(self) -> None:
        request = urllib.request.Request(self._url)
        request.add_header("Authorization", f"Bearer {self._api._token}")
        context: ssl.SSLContext = self._api._ssl
        try:
            with urllib.request.urlopen(
                request, timeout=WATCH_SECONDS + 5, context=context
            ) as reply:
                self._reply = reply
                self._started.set()
                for line in reply:
                    event = json.loads(line)
                    if event.get("type") in ("ADDED", "MODIFIED"):
                        self.states.append(event["object"])
        except (OSError, ValueError, AttributeError):
            return  # closed by __exit__ (http.client then reads from a closed socket)
        finally:
            self._started.set()

    def nominations(self) -> list[tuple[str, str]]:
        """(nominatedNodeName, nodeName) of every state that had a nomination."""
        return [
            (state["status"]["nominatedNodeName"], state["spec"].get("nodeName", ""))
            for state in self.states
            if state.get("status", {}).get("nominatedNodeName")
        ]
