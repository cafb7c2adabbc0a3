"""A scheduler extender on 127.0.0.1 for the unit tests: it answers the filter, prioritize
and bind verbs from tables and records every request body."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson
from aiohttp import web


@dataclass
class FakeExtender:
    """What the extender says: nodes it refuses (`failed`) or refuses for good
    (`unresolvable`), its scores by node, and the status code of every answer."""

    failed: dict[str, str] = field(default_factory=dict)
    unresolvable: dict[str, str] = field(default_factory=dict)
    scores: dict[str, int] = field(default_factory=dict)
    status: int = 200
    bind_error: str = ""
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def bodies(self, verb: str) -> list[dict[str, Any]]:
        return [body for name, body in self.requests if name == verb]

    async def answer(self, request: web.Request) -> web.Response:
        verb = request.path.rsplit("/", 1)[-1]
        body = orjson.loads(await request.read())
        self.requests.append((verb, body))
        if self.status != 200:
            return web.Response(status=self.status)
        result: Any = {"filter": self._filter, "prioritize": self._prioritize}.get(
            verb, self._bind
        )(body)
        return web.Response(body=orjson.dumps(result), content_type="application/json")

    def _filter(self, body: dict[str, Any]) -> dict[str, Any]:
        refused = self.failed.keys() | self.unresolvable.keys()
        result: dict[str, Any] = {
            "FailedNodes": self.failed,
            "FailedAndUnresolvableNodes": self.unresolvable,
            "Error": "",
        }
        if body["NodeNames"] is not None:
            result["NodeNames"] = [n for n in body["NodeNames"] if n not in refused]
        else:
            items = [n for n in body["Nodes"]["items"] if n["metadata"]["name"] not in refused]
            result["Nodes"] = {"items": items}
        return result

    def _prioritize(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        names = body["NodeNames"] or [n["metadata"]["name"] for n in body["Nodes"]["items"]]
        return [{"Host": name, "Score": self.scores.get(name, 0)} for name in names]

    def _bind(self, _body: dict[str, Any]) -> dict[str, Any]:
        return {"Error": self.bind_error}


@asynccontextmanager
async def running(extender: FakeExtender) -> AsyncIterator[str]:
    """Serve `extender` on 127.0.0.1; its URL prefix."""
    app = web.Application()
    app.router.add_post("/ext/{verb}", extender.answer)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}/ext"
    finally:
        await runner.cleanup()
