"""The writer process's plumbing (`kubesched.kube.writer_process`, `writer_frames`) with a
stand-in child that answers instead of an API server (the real child is proven against the
real API server in tests/e2e/test_writer_process.py)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from kubesched.kube.errors import ConnectionFailed, Fenced
from kubesched.kube.writer_frames import FrameError, FrameReader, encode
from kubesched.kube.writer_process import WriterProcess

FAKE_CHILD = Path(__file__).with_name("fake_writer_child.py")


@pytest.fixture
async def writer() -> AsyncIterator[WriterProcess]:
    process = WriterProcess([sys.executable, str(FAKE_CHILD)], {"kubeconfig": ""})
    await process.start()
    yield process
    await process.close(timeout=5)


async def _post(writer: WriterProcess, path: str, timeout: float = 5.0) -> tuple[int, bytes]:
    status, body, _ = await writer.write(
        "POST",
        path,
        body={},
        params=None,
        content_type="application/json",
        timeout=timeout,
        fence=None,
    )
    return status, body


def test_frames_survive_any_split_of_the_stream() -> None:
    stream = encode({"i": 1, "n": 3}, b"abc") + encode({"i": 2}) + encode({"i": 3, "n": 0})
    for cut in range(len(stream) + 1):
        reader = FrameReader()
        frames = reader.feed(stream[:cut]) + reader.feed(stream[cut:])
        assert frames == [({"i": 1, "n": 3}, b"abc"), ({"i": 2}, b""), ({"i": 3, "n": 0}, b"")]


@pytest.mark.parametrize(
    "corrupt",
    [
        b"\x00\x00\x00\x02[]",
        b"\x00\x00\x00\x03{x}",
        b"\xff\xff\xff\xff",
        b'\x00\x00\x00\x08{"n":-1}',
    ],
)
def test_a_corrupt_stream_is_refused(corrupt: bytes) -> None:
    with pytest.raises(FrameError):
        FrameReader().feed(corrupt)


async def test_answers_reach_their_callers(writer: WriterProcess) -> None:
    answers = await asyncio.gather(*(_post(writer, f"/p/{i}") for i in range(50)))
    assert answers == [(201, f"/p/{i}".encode()) for i in range(50)]
    status, _, observed = await writer.write(
        "PATCH",
        "/x",
        body=[],
        params={"a": "b"},
        content_type="application/json",
        timeout=5,
        fence=12.5,
    )
    assert (status, observed) == (201, [("PATCH", "fake", "201", 0.001, False)])


async def test_a_fenced_write_raises_fenced(writer: WriterProcess) -> None:
    with pytest.raises(Fenced, match="fence closed"):
        await _post(writer, "/fenced")


async def test_a_dead_child_fails_what_it_held_and_is_replaced(writer: WriterProcess) -> None:
    first = writer.pid
    held = asyncio.create_task(_post(writer, "/hang", timeout=30))
    await asyncio.sleep(0.1)
    with pytest.raises(ConnectionFailed, match="exit code 3"):
        await _post(writer, "/exit")
    with pytest.raises(ConnectionFailed, match="may or may not have been applied"):
        await held
    assert writer.down_for() >= 0
    assert await _post(writer, "/after", timeout=10) == (201, b"/after")
    assert writer.pid not in {None, first}
    assert writer.down_for() == 0


async def test_closing_the_fence_waits_for_the_childs_answer(writer: WriterProcess) -> None:
    assert await writer.close_fence(timeout=5)


async def test_a_request_without_an_answer_times_out(
    writer: WriterProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kubesched.kube.writer_process.ANSWER_GRACE_SECONDS", 0.0)
    monkeypatch.setattr("kubesched.kube.writer_process.WATCHDOG_SECONDS", 0.1)
    with pytest.raises(ConnectionFailed, match="no answer from the writer process in time"):
        await _post(writer, "/hang", timeout=0.2)


async def test_after_close_writes_are_refused(writer: WriterProcess) -> None:
    await writer.close(timeout=5)
    assert writer.pid is None
    with pytest.raises(ConnectionFailed, match="not running"):
        await _post(writer, "/late")
