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
    preempt_on: set[str] = field(default_factory=set)
    """The nodes the preempt verb accepts (with the victims it was sent)."""
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def bodies(self, verb: str) -> list[dict[str, Any]]:
        return [body for name, body in self.requests if name == verb]

    async def answer(self, request: web.Request) -> web.Response:
        verb = request.path.rsplit("/", 1)[-1]
        body = orjson.loads(await request.read())
        self.requests.append((verb, body))
        if self.status != 200:
            return web.Response(status=self.status)
        verbs = {"filter": self._filter, "prioritize": self._prioritize, "preempt": self._preempt}
        result: Any = verbs.get(verb, self._bind)(body)
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

    def _preempt(self, body: dict[str, Any]) -> dict[str, Any]:
        if body["NodeNameToMetaVictims"] is not None:
            sent = body["NodeNameToMetaVictims"]
        else:
            sent = {
                node: {
                    "Pods": [{"UID": p["metadata"]["uid"]} for p in victims["Pods"]],
                    "NumPDBViolations": victims["NumPDBViolations"],
                }
                for node, victims in body["NodeNameToVictims"].items()
            }
        kept = {n: v for n, v in sent.items() if n in self.preempt_on}
        unknown = {n: {"Pods": [{"UID": "u"}]} for n in self.preempt_on if n not in sent}
        return {"NodeNameToMetaVictims": kept | unknown}

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
