"""One scheduler extender on 127.0.0.1 over HTTPS, for the side-by-side extender test: both
kube-scheduler and kubesched call it.

Under `/ext` (node cache capable): `filter` refuses the nodes labelled `REFUSE` (FailedNodes)
and those labelled `EXCLUDED_ZONE` (FailedAndUnresolvableNodes), and every node for a pod
labelled `WAIT` until the test opens them (`closed`); `prioritize` gives the
node labelled `PREFERRED` 10 and the others 3; `preempt` keeps every candidate node but
the `PREFERRED` one; `bind` binds the pod through the API server
(with the admin client) and records it. Under `/gpu` (sent whole nodes): `filter` keeps
the nodes labelled `GPU` only. Every request body is recorded, by path.
"""

from __future__ import annotations

import json
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.e2e.harness.api import ApiClient, ApiError

REFUSE = "ext.test/refuse"
EXCLUDED_ZONE = "ext.test/zone-excluded"
PREFERRED = "ext.test/preferred"
GPU = "ext.test/gpu"
REFUSED_WHY = "node(s) refused by the extender"
EXCLUDED_WHY = "node(s) in a zone the extender excludes"
NO_GPU_WHY = "node(s) without the extender's gpu"
WAIT = "ext.test/wait"
CLOSED_WHY = "node(s) closed by the extender for now"


class ExtenderState:
    """What the extender was asked, and the API client it binds with."""

    def __init__(self, api: ApiClient) -> None:
        self.api = api
        self.lock = threading.Lock()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.labels: dict[str, dict[str, str]] = {}
        """Node labels by name, as the test made them (the node cache of the extender)."""
        self.closed = True
        """While set, pods labelled `WAIT` are refused on every node."""

    def bodies(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [body for seen, body in self.requests if seen == path]

    def answer(self, path: str, body: dict[str, Any]) -> Any:
        with self.lock:
            self.requests.append((path, body))
        handler = {
            "/ext/filter": self._filter,
            "/ext/prioritize": self._prioritize,
            "/ext/bind": self._bind,
            "/ext/preempt": self._preempt,
            "/gpu/filter": self._gpu_filter,
        }[path]
        return handler(body)

    def _filter(self, body: dict[str, Any]) -> dict[str, Any]:
        passed, failed, unresolvable = [], {}, {}
        waits = WAIT in (body["Pod"]["metadata"].get("labels") or {}) and self.closed
        for name in body["NodeNames"]:
            labels = self.labels.get(name, {})
            if waits:
                failed[name] = CLOSED_WHY
            elif EXCLUDED_ZONE in labels:
                unresolvable[name] = EXCLUDED_WHY
            elif REFUSE in labels:
                failed[name] = REFUSED_WHY
            else:
                passed.append(name)
        return {
            "NodeNames": passed,
            "FailedNodes": failed,
            "FailedAndUnresolvableNodes": unresolvable,
            "Error": "",
        }

    def _prioritize(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"Host": name, "Score": 10 if PREFERRED in self.labels.get(name, {}) else 3}
            for name in body["NodeNames"]
        ]

    def _preempt(self, body: dict[str, Any]) -> dict[str, Any]:
        candidates = body["NodeNameToMetaVictims"] or {}
        kept = {n: v for n, v in candidates.items() if PREFERRED not in self.labels.get(n, {})}
        return {"NodeNameToMetaVictims": kept}

    def _bind(self, body: dict[str, Any]) -> dict[str, Any]:
        pod = {"metadata": {"name": body["PodName"], "namespace": body["PodNamespace"]}}
        pod["metadata"]["uid"] = body["PodUID"]
        try:
            self.api.bind(pod, body["Node"])
        except ApiError as error:
            return {"Error": str(error)}
        return {"Error": ""}

    def _gpu_filter(self, body: dict[str, Any]) -> dict[str, Any]:
        items = body["Nodes"]["items"]
        keep = [n for n in items if GPU in (n["metadata"].get("labels") or {})]
        failed = {n["metadata"]["name"]: NO_GPU_WHY for n in items if n not in keep}
        return {"Nodes": {"items": keep}, "FailedNodes": failed, "Error": ""}


def _handler(state: ExtenderState) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            answer = json.dumps(state.answer(self.path, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            return

    return Handler


@contextmanager
def extender_server(
    state: ExtenderState, *, certificate: Path, key: Path, client_ca: bytes
) -> Iterator[str]:
    """Serve `state` over HTTPS on 127.0.0.1 (in a thread), to callers with a certificate
    `client_ca` signed (mutual TLS); its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate, key)
    context.verify_mode = ssl.CERT_REQUIRED
    context.load_verify_locations(cadata=client_ca.decode())
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, name="extender", daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
