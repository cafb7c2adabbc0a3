"""The protobuf bodies of the Binding and the Event: the bytes the API server's protobuf
serializer reads (magic, runtime.Unknown, the message with generated.proto's field numbers),
and JSON wherever a kind or a field is not known. The real API server decoding them is
tests/e2e/test_protobuf_writes.py."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.kube.protobuf import MAGIC, encode

BINDING = {
    "apiVersion": "v1",
    "kind": "Binding",
    "metadata": {"name": "p", "namespace": "ns", "uid": "u"},
    "target": {"apiVersion": "v1", "kind": "Node", "name": "n1"},
}

EVENT: dict[str, Any] = {
    "apiVersion": "events.k8s.io/v1",
    "kind": "Event",
    "metadata": {"name": "p.1", "namespace": "ns"},
    "eventTime": "2026-12-05T12:00:01.000250Z",
    "reportingController": "my-scheduler",
    "reportingInstance": "my-scheduler-host",
    "action": "Preempting",
    "reason": "Preempted",
    "regarding": {"kind": "Pod", "namespace": "ns", "name": "victim", "apiVersion": "v1"},
    "related": {"kind": "Pod", "namespace": "ns", "name": "preemptor", "uid": "u2"},
    "note": "Preempted by pod u2 on node n1",
    "type": "Normal",
    "series": {"count": 300, "lastObservedTime": "2026-12-05T12:00:02Z"},
}


def parse(data: bytes) -> list[tuple[int, Any]]:
    """One protobuf message's fields in wire order: (number, varint or bytes)."""
    fields: list[tuple[int, Any]] = []
    at = 0

    def varint() -> int:
        nonlocal at
        value, shift = 0, 0
        while True:
            byte = data[at]
            at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    while at < len(data):
        key = varint()
        number, wire_type = key >> 3, key & 7
        if wire_type == 0:
            fields.append((number, varint()))
        else:
            assert wire_type == 2, wire_type
            size = varint()
            fields.append((number, data[at : at + size]))
            at += size
    return fields


def unknown(body: bytes) -> tuple[list[tuple[int, Any]], bytes]:
    """runtime.Unknown's typeMeta fields and its raw bytes."""
    assert body.startswith(MAGIC)
    (type_number, type_meta), (raw_number, raw) = parse(body[len(MAGIC) :])
    assert (type_number, raw_number) == (1, 2)
    return parse(type_meta), raw


def test_a_binding_byte_for_byte() -> None:
    expected = (
        b"k8s\x00"
        b"\x0a\x0d"  # Unknown.typeMeta, 13 bytes
        b"\x0a\x02v1"  # TypeMeta.apiVersion
        b"\x12\x07Binding"  # TypeMeta.kind
        b"\x12\x1c"  # Unknown.raw, 28 bytes
        b"\x0a\x0a"  # Binding.metadata, 10 bytes
        b"\x0a\x01p"  # ObjectMeta.name
        b"\x1a\x02ns"  # ObjectMeta.namespace (3)
        b"\x2a\x01u"  # ObjectMeta.uid (5)
        b"\x12\x0e"  # Binding.target, 14 bytes, its fields in the JSON object's order:
        b"\x2a\x02v1"  # ObjectReference.apiVersion (5)
        b"\x0a\x04Node"  # ObjectReference.kind (1)
        b"\x1a\x02n1"  # ObjectReference.name (3)
    )
    assert encode(BINDING) == expected


def test_an_event_with_series_and_related() -> None:
    type_meta, raw = unknown(encode(EVENT) or b"")
    assert type_meta == [(1, b"events.k8s.io/v1"), (2, b"Event")]
    fields = parse(raw)
    # In the JSON object's order (series last), which any protobuf reader accepts.
    assert [number for number, _ in fields] == [1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 3]
    values = dict(fields)
    assert parse(values[1]) == [(1, b"p.1"), (3, b"ns")]
    # 2026-12-05T12:00:01Z is 1796472001 s after the epoch; 250 us are 250000 ns.
    assert parse(values[2]) == [(1, 1796472001), (2, 250_000)]
    (count, series_time) = parse(values[3])
    assert count == (1, 300)
    assert parse(series_time[1]) == [(1, 1796472002)]  # whole seconds: no nanos
    assert (values[7], values[11]) == (b"Preempted", b"Normal")
    assert parse(values[9]) == [(1, b"Pod"), (2, b"ns"), (3, b"preemptor"), (4, b"u2")]


def test_labels_are_map_entries_in_key_order() -> None:
    body = {**BINDING, "metadata": {"name": "p", "labels": {"b": "2", "a": "1"}}}
    _, raw = unknown(encode(body) or b"")
    metadata = parse(dict(parse(raw))[1])
    entries = [parse(entry) for number, entry in metadata if number == 11]
    assert entries == [[(1, b"a"), (2, b"1")], [(1, b"b"), (2, b"2")]]


def test_none_values_are_left_out_as_in_json() -> None:
    body = {**BINDING, "metadata": {"name": "p", "namespace": None}}
    _, raw = unknown(encode(body) or b"")
    assert parse(dict(parse(raw))[1]) == [(1, b"p")]


@pytest.mark.parametrize(
    "body",
    [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},  # not a known kind
        {"kind": "Binding", "metadata": {"name": "p"}},  # no apiVersion
        {**BINDING, "status": {}},  # a field the table does not know
        {**BINDING, "metadata": {"name": "p", "ownerReferences": []}},  # nor a nested one
        {**BINDING, "metadata": {"name": 7}},  # not a string
        {**BINDING, "target": "n1"},  # not an object
        {**EVENT, "eventTime": "yesterday"},  # not a time
        {**EVENT, "eventTime": "2026-12-05T12:00:00"},  # a time without its zone
        {**EVENT, "series": {"count": True}},  # a bool is not a count
        {**EVENT, "note": "\udc80"},  # not UTF-8
    ],
)
def test_what_it_cannot_encode_stays_json(body: dict[str, Any]) -> None:
    assert encode(body) is None


def test_a_negative_integer_is_ten_bytes_of_twos_complement() -> None:
    _, raw = unknown(encode({**EVENT, "series": {"count": -1}}) or b"")
    series = dict(parse(raw))[3]
    assert series == b"\x08" + b"\xff" * 9 + b"\x01"
