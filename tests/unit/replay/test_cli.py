"""`kubesched replay` and `kubesched record` on the command line: the table and the JSON,
and one line with exit code 2 for a trace that cannot be replayed, never a traceback."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import orjson
import pytest

from kubesched.cli import main
from kubesched.cli import record as record_cli
from kubesched.replay import read_trace, trace
from kubesched.replay.recorder import Limits, record
from kubesched.testing.builders import make_node, make_pod
from tests.unit.replay.test_recorder import PathApi
from tests.unit.replay.traces import HEADER, at, listed, write

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "prefer_label"


def _trace(tmp_path: Path) -> Path:
    records = [
        listed("nodes", make_node().name("n1").capacity(cpu="4").obj()),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", make_pod().name("p").namespace("w").req(cpu="1").obj()),
        at(2.0, trace.ADDED, "pods", make_pod().name("q").namespace("w").req(cpu="8").obj()),
    ]
    return write(tmp_path / "t.jsonl.gz", records, end=5.0)


def test_replay_prints_the_table_and_writes_the_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.json"
    assert main(["replay", str(_trace(tmp_path)), "--json", str(out), "--seed", "4"]) == 0
    printed = capsys.readouterr().out
    assert "scheduled" in printed
    assert "default" in printed
    report = orjson.loads(out.read_bytes())
    [config] = report["configs"]
    assert (config["config"], config["scheduled"], config["unschedulable"]) == ("default", 1, 1)
    decisions = {d["pod"]: d["node"] for d in config["decisions"]}
    assert decisions == {"w/p": "n1", "w/q": ""}
    assert report["seed"] == 4


def _corrupt(tmp_path: Path) -> Path:
    path = tmp_path / "corrupt.gz"
    path.write_bytes(b"this is not gzip")
    return path


def _truncated(tmp_path: Path) -> Path:
    path = _trace(tmp_path)
    path.write_bytes(path.read_bytes()[:-30])
    return path


def _newer(tmp_path: Path) -> Path:
    path = tmp_path / "newer.gz"
    with gzip.open(path, "wb") as stream:
        stream.write(orjson.dumps({**HEADER.as_json(), "version": 99}) + b"\n")
    return path


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (_corrupt, "not a kubesched trace"),
        (_truncated, "truncated"),
        (_newer, "upgrade kubesched"),
    ],
)
def test_a_bad_trace_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, says: str
) -> None:
    path = make(tmp_path)  # type: ignore[operator]
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kubesched replay: ")
    assert says in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_a_bad_config_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.yaml"
    assert main(["replay", str(_trace(tmp_path)), "--config", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kubesched replay: ")
    assert "Traceback" not in err


def test_record_refuses_a_bad_duration(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["record", "--out", "t.gz", "--duration", "soon"])
    assert exited.value.code == 2
    assert "'soon' is not a duration" in capsys.readouterr().err


def test_record_refuses_an_out_folder_that_does_not_exist(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", "--out", str(tmp_path / "no" / "t.gz")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_record_without_a_cluster_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kubeconfig = tmp_path / "missing-kubeconfig"
    code = main(["record", "--out", str(tmp_path / "t.gz"), "--kubeconfig", str(kubeconfig)])
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith("kubesched record: ")
    assert err.count("\n") == 1


def test_replay_loads_a_plugin_module(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example plugin of docs/writing-plugins.md moves every pod to the labelled node."""
    monkeypatch.syspath_prepend(str(EXAMPLE))
    labelled = make_node().name("batch").label("node-role.example.com/batch", "true").obj()
    nodes = [make_node().name(f"n{i}").capacity(cpu="16").obj() for i in range(3)]
    records = [listed("nodes", node) for node in [*nodes, labelled]]
    records.append({"t": 0.0, "op": trace.SYNCED})
    records += [
        at(1.0 + i, trace.ADDED, "pods", make_pod().name(f"p{i}").namespace("w").obj())
        for i in range(3)
    ]
    path = write(tmp_path / "t.jsonl.gz", records, end=5.0)
    out = tmp_path / "report.json"
    argv = ["replay", str(path), "--json", str(out), "--plugin-module", "prefer_label"]
    assert main([*argv, "--config", str(EXAMPLE / "profile.yaml")]) == 0
    capsys.readouterr()
    [config] = orjson.loads(out.read_bytes())["configs"]
    assert {d["pod"]: d["node"] for d in config["decisions"]} == dict.fromkeys(
        ("w/p0", "w/p1", "w/p2"), "batch"
    )


def test_record_stops_at_max_bytes(tmp_path: Path) -> None:
    """A size limit ends the recording with a complete trace (`max-bytes`)."""
    api = _many_pods_api(2000)
    summary = asyncio.run(
        record(
            api,
            tmp_path / "t.jsonl.gz",
            limits=Limits(duration=10, max_bytes=4096),
            stop=asyncio.Event(),
            progress=lambda line: None,
        )
    )
    assert summary.reason == "max-bytes"
    assert read_trace(tmp_path / "t.jsonl.gz").end_reason == "max-bytes"


def _many_pods_api(count: int) -> PathApi:
    pods = [
        make_pod().name(f"pod-{i}-{i * 7919 % 10007}").namespace("w").req(cpu=f"{i}m").obj()
        for i in range(count)
    ]
    api = PathApi(
        objects={
            "/api/v1/nodes": [make_node().name("n1").obj()],
            "/api/v1/pods": pods,
            "/api/v1/namespaces": [{"metadata": {"name": "w"}}],
            "/api/v1/events": [],
        },
        changes={},
    )
    api.gate.set()
    return api


def test_an_object_that_cannot_be_parsed_is_skipped_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = make_pod().name("bad").namespace("w").req(cpu="lots").obj()
    records = [
        listed("nodes", make_node().name("n1").obj()),
        {"t": 0.0, "op": trace.SYNCED},
        at(1.0, trace.ADDED, "pods", bad),
        at(2.0, trace.ADDED, "pods", make_pod().name("good").namespace("w").obj()),
    ]
    path = write(tmp_path / "t.jsonl.gz", records, end=5.0)
    assert main(["replay", str(path)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "skipped 1 record(s) whose object could not be parsed; the first: pods w/bad" in (
        captured.err
    )
    assert "scheduled                1" in captured.out


def test_without_a_terminal_the_progress_is_a_line_every_ten_seconds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    progress = record_cli._Progress()
    for second in range(21):
        progress(f"recording {second}s")
    assert capsys.readouterr().err.splitlines() == [
        "recording 0s",
        "recording 10s",
        "recording 20s",
    ]
