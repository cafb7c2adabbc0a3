"""The process's event loop: uvloop when installed, asyncio's when asked for or when absent."""

from __future__ import annotations

import asyncio
import sys

import pytest
import uvloop

from kubesched.server import eventloop


async def _loop_type() -> type:
    return type(asyncio.get_running_loop())


def test_uvloop_is_chosen_when_installed() -> None:
    assert eventloop.loop_factory({}) is uvloop.new_event_loop
    assert issubclass(eventloop.run(_loop_type(), environ={}), uvloop.Loop)


def test_the_environment_variable_chooses_asyncios_loop() -> None:
    environ = {eventloop.ENV_VAR: "asyncio"}
    assert eventloop.loop_factory(environ) is None
    assert not issubclass(eventloop.run(_loop_type(), environ=environ), uvloop.Loop)


def test_without_uvloop_the_standard_loop_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvloop", None)  # `import uvloop` raises ImportError
    assert eventloop.loop_factory({}) is None
    assert not issubclass(eventloop.run(_loop_type(), environ={}), uvloop.Loop)
