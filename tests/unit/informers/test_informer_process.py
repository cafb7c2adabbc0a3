"""`InformerProcess` with a stand-in child: its deltas reach the informers; a child killed
with SIGKILL is noticed at once and replaced, and the new child's list reconciles the store
(what was deleted or changed while none ran reaches the handler); closing stops it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from kubesched.informers.process import InformerProcess
from kubesched.informers.remote import RemoteReflector
from kubesched.model import Node
from tests.unit.api_fakes import wait_for
from tests.unit.informers.test_reflector import Recorder

FAKE_CHILD = Path(__file__).with_name("fake_informer_child.py")


class NodeRecorder(Recorder):
    def on_add(self, obj: Node) -> None:  # type: ignore[override]
        self.log.append(("add", obj.name, obj.resource_version))

    def on_update(self, old: Node, new: Node) -> None:  # type: ignore[override]
        self.log.append(("update", new.name, old.resource_version, new.resource_version))

    def on_delete(self, obj: Node) -> None:  # type: ignore[override]
        self.log.append(("delete", obj.name, obj.resource_version))


async def test_a_killed_child_is_replaced_and_its_relist_reconciles(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps([["a", "1"], ["b", "2"]]))
    process = InformerProcess([sys.executable, str(FAKE_CHILD)], {"state_file": str(state)})
    handler = NodeRecorder()
    nodes: RemoteReflector[Node] = RemoteReflector(
        path="/api/v1/nodes",
        key=lambda n: n.name,
        version=lambda n: n.resource_version,
        handler=handler,
    )
    process.register(nodes, kind="nodes", field_selector="")
    task = asyncio.create_task(nodes.run())
    await asyncio.wait_for(nodes.synced.wait(), 10)
    assert handler.log == [("add", "a", "1"), ("add", "b", "2")]
    assert nodes.health().ready

    first = process.pid
    assert first is not None
    state.write_text(json.dumps([["a", "5"], ["c", "3"]]))
    handler.log.clear()
    os.kill(first, signal.SIGKILL)
    await wait_for(lambda: process.pid is None, timeout=5)
    assert "signal 9" in nodes.health().error
    assert nodes.health().alive  # restarting within its backoff
    await wait_for(lambda: process.pid not in (None, first), timeout=5)
    await wait_for(lambda: len(handler.log) == 3, timeout=5)
    assert handler.log == [("delete", "b", "2"), ("update", "a", "1", "5"), ("add", "c", "3")]
    assert nodes.relists == 2
    await wait_for(lambda: nodes.health().error == "", timeout=5)

    second = process.pid
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    assert process.pid is None
    await wait_for(lambda: not Path(f"/proc/{second}").exists() or _zombie(second), timeout=5)


def _zombie(pid: int | None) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


async def test_a_child_that_cannot_start_is_retried_and_reported(tmp_path: Path) -> None:
    process = InformerProcess([str(tmp_path / "no-such-program")], {})
    nodes: RemoteReflector[Node] = RemoteReflector(
        path="/api/v1/nodes",
        key=lambda n: n.name,
        version=lambda n: n.resource_version,
        handler=NodeRecorder(),
    )
    process.register(nodes, kind="nodes", field_selector="")
    task = asyncio.create_task(nodes.run())
    await wait_for(lambda: "start failed" in nodes.health().error, timeout=5)
    assert not task.done()  # the informer runs on; the process is retried
    assert not nodes.health().synced
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
