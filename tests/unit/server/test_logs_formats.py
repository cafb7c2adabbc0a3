"""klog's formats: JSON with structured keys, verbosity levels, --vmodule, `extra=` details."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator, Mapping

import numpy as np
import pytest

from kubesched.config.vmodule import parse_vmodule
from kubesched.framework.logkv import Bare, kv
from kubesched.framework.verbosity import V
from kubesched.server.logs import KlogFormatter, setup_logging
from kubesched.server.logs_json import KlogJsonFormatter


def record(
    message: str,
    *args: object,
    level: int = logging.INFO,
    pairs: Mapping[str, object] | None = None,
    **extra: object,
) -> logging.LogRecord:
    """A log record; `pairs` (a structured call's `kv(...)`) and `extra` become its attributes."""
    rec = logging.LogRecord("kubesched", level, "/x/schedule_one.py", 7, message, args, None)
    rec.__dict__.update(pairs or {})
    rec.__dict__.update(extra)
    return rec


def as_json(rec: logging.LogRecord, extras: tuple[str, ...] = ()) -> dict[str, object]:
    entry: dict[str, object] = json.loads(KlogJsonFormatter(extras).format(rec))
    return entry


def test_json_lines_carry_the_message_and_its_keys() -> None:
    entry = as_json(
        record(
            "Successfully bound pod to node",
            level=V(2),
            pairs=kv(pod="ns/p", node="n1", attempts=np.int64(2), score=np.float64(0.5)),
        ),
        ("plugin",),
    )
    assert entry["msg"] == "Successfully bound pod to node"
    assert entry["v"] == 2
    assert (entry["pod"], entry["node"], entry["attempts"]) == ("ns/p", "n1", 2)
    assert entry["score"] == 0.5
    assert entry["caller"] == "schedule_one.py:7"
    assert isinstance(entry["ts"], float)


def test_json_values_keep_their_types() -> None:
    pairs = kv(n=3, ok=True, ratio=0.25, missing=None, took=Bare("15s"), names=["a", "b"])
    entry = as_json(record("typed", pairs=pairs))
    assert [entry[key] for key in ("n", "ok", "ratio", "missing", "took", "names")] == [
        3,
        True,
        0.25,
        None,
        "15s",
        "['a', 'b']",
    ]


def test_json_errors_have_err_and_no_v() -> None:
    error = RuntimeError("boom")
    entry = as_json(record("bind failed", level=logging.ERROR, pairs=kv(pod="ns/p", err=error)))
    assert entry["err"] == "boom"
    assert "v" not in entry


def test_json_values_with_quotes_and_control_characters_round_trip() -> None:
    hostile = 'a"b\nc\x1bd'
    assert as_json(record("waiting", pairs=kv(holder=hostile)))["holder"] == hostile


def test_json_keeps_a_message_that_only_looks_like_a_template_whole() -> None:
    text = '"connected" server="https://x" port=6443'
    entry = as_json(record(text))
    assert entry["msg"] == text
    assert "server" not in entry


def test_plugin_details_passed_with_extra_are_written() -> None:
    rec = record("Plugin raised an exception", level=logging.ERROR, plugin="Boom", point="Filter")
    assert (
        KlogFormatter()
        .format(rec)
        .endswith('Plugin raised an exception plugin="Boom" point="Filter"')
    )
    entry = as_json(rec, ("plugin", "point"))
    assert (entry["plugin"], entry["point"]) == ("Boom", "Filter")


def test_a_library_message_is_the_json_msg_whole() -> None:
    entry = as_json(record("plain text, no template"))
    assert entry["msg"] == "plain text, no template"


def emitted(verbosity: int, vmodule: tuple[str, ...] = ()) -> str:
    setup_logging(verbosity=verbosity, vmodule=vmodule)
    stream = io.StringIO()
    logging.getLogger().handlers[0].setStream(stream)  # type: ignore[attr-defined]
    for name in ("kubesched.scheduler.schedule_one", "kubesched.scheduler.binder"):
        logger = logging.getLogger(name)
        logger.info('"v0"')
        logger.log(V(2), '"v2"')
        logger.debug('"debug"')
    return stream.getvalue()


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_verbosity_shows_v_levels_at_and_below_it() -> None:
    assert emitted(0).count('"v0"') == 2
    assert '"v2"' not in emitted(0)
    assert emitted(2).count('"v2"') == 2
    assert '"debug"' not in emitted(3)
    assert emitted(4).count('"debug"') == 2


def test_vmodule_raises_one_file() -> None:
    text = emitted(0, ("test_logs_form*=4",))
    assert text.count('"v2"') == 2  # both loggers log from this test file
    assert parse_vmodule(["schedule_one=4,binder=2"]) == [("schedule_one", 4), ("binder", 2)]
    with pytest.raises(ValueError, match="is not pattern=N"):
        parse_vmodule(["schedule_one"])
