"""Kubernetes' protobuf wire format for the objects kubesched writes on every pod.

kube-scheduler's clients send `application/vnd.kubernetes.protobuf`
(`clientConnection.contentType`'s default), which the API server decodes with less CPU than
JSON. kubesched writes two objects per scheduled pod, the `v1` Binding and the
`events.k8s.io/v1` Event, so those two kinds (and the messages they hold) are encoded here;
everything else, and any body with a field these tables do not know, stays JSON (`encode`
answers None), so a field can never be silently dropped. Reads and watches stay JSON:
orjson decodes them faster than Python decodes protobuf.

A body is the magic `k8s\\0` and a `runtime.Unknown` {typeMeta, raw}, as the API server's
protobuf serializer writes it; field numbers are those of the API's `generated.proto`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from kubesched.apis.config import PROTOBUF_CONTENT_TYPE as PROTOBUF

__all__ = ["KINDS", "PROTOBUF", "encode"]

MAGIC = b"k8s\x00"

_VARINT, _BYTES = 0, 2


class _Unencodable(Exception):
    """A value these tables cannot encode: the caller sends JSON instead."""


def _varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return bytes((value,))
    if value < 0:
        value += 1 << 64  # int32/int64 negatives are ten-byte two's complement
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _tag(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _delimited(tag: bytes, payload: bytes) -> bytes:
    return tag + _varint(len(payload)) + payload


Writer = Callable[[bytes, Any], bytes]
"""Writes one field (its tag given) of a JSON value; raises _Unencodable when it cannot."""


def _string(tag: bytes, value: Any) -> bytes:
    if not isinstance(value, str):
        raise _Unencodable(value)
    return _delimited(tag, value.encode())


def _integer(tag: bytes, value: Any) -> bytes:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Unencodable(value)
    return tag + _varint(value)


_SECONDS, _NANOS = _tag(1, _VARINT), _tag(2, _VARINT)


def _micro_time(tag: bytes, value: Any) -> bytes:
    """An RFC 3339 time (`2026-12-05T12:00:00.123456Z`) as MicroTime {seconds, nanos}."""
    if not isinstance(value, str):
        raise _Unencodable(value)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise _Unencodable(value) from exc
    if moment.tzinfo is None:
        raise _Unencodable(value)
    body = _SECONDS + _varint(int(moment.replace(microsecond=0).timestamp()))
    if moment.microsecond:
        body += _NANOS + _varint(moment.microsecond * 1000)
    return _delimited(tag, body)


_KEY, _VALUE = _tag(1, _BYTES), _tag(2, _BYTES)


def _string_map(tag: bytes, value: Any) -> bytes:
    """A `map<string, string>`: one entry message {key = 1, value = 2} per pair."""
    if not isinstance(value, dict):
        raise _Unencodable(value)
    return b"".join(
        _delimited(tag, _string(_KEY, key) + _string(_VALUE, item))
        for key, item in sorted(value.items())
    )


class Message:
    """One message type: its fields by JSON name, written in field-number order (as Go's
    marshaller writes them)."""

    __slots__ = ("_fields", "_names")

    def __init__(self, fields: Mapping[str, tuple[int, Writer | Message]]) -> None:
        ordered = sorted(fields.items(), key=lambda item: item[1][0])
        self._fields = tuple(
            (name, _tag(number, _VARINT if writer is _integer else _BYTES), writer)
            for name, (number, writer) in ordered
        )
        self._names = frozenset(fields)

    def body(self, value: Any) -> bytes:
        """The message's bytes (without tag and length)."""
        if not isinstance(value, dict) or not value.keys() <= self._names:
            raise _Unencodable(value)
        parts = []
        for name, tag, writer in self._fields:
            item = value.get(name)
            if item is not None:
                parts.append(writer(tag, item))
        return b"".join(parts)

    def __call__(self, tag: bytes, value: Any) -> bytes:
        return _delimited(tag, self.body(value))


_OBJECT_META = Message(
    {
        "name": (1, _string),
        "generateName": (2, _string),
        "namespace": (3, _string),
        "uid": (5, _string),
        "resourceVersion": (6, _string),
        "labels": (11, _string_map),
        "annotations": (12, _string_map),
    }
)
_OBJECT_REFERENCE = Message(
    {
        "kind": (1, _string),
        "namespace": (2, _string),
        "name": (3, _string),
        "uid": (4, _string),
        "apiVersion": (5, _string),
        "resourceVersion": (6, _string),
        "fieldPath": (7, _string),
    }
)
_BINDING = Message({"metadata": (1, _OBJECT_META), "target": (2, _OBJECT_REFERENCE)})
_EVENT_SERIES = Message({"count": (1, _integer), "lastObservedTime": (2, _micro_time)})
_EVENT = Message(
    {
        "metadata": (1, _OBJECT_META),
        "eventTime": (2, _micro_time),
        "series": (3, _EVENT_SERIES),
        "reportingController": (4, _string),
        "reportingInstance": (5, _string),
        "action": (6, _string),
        "reason": (7, _string),
        "regarding": (8, _OBJECT_REFERENCE),
        "related": (9, _OBJECT_REFERENCE),
        "note": (10, _string),
        "type": (11, _string),
    }
)

KINDS: dict[tuple[str, str], Message] = {
    ("v1", "Binding"): _BINDING,
    ("events.k8s.io/v1", "Event"): _EVENT,
}
"""The (apiVersion, kind) pairs `encode` writes as protobuf."""

_TYPE_META, _RAW = _tag(1, _BYTES), _tag(2, _BYTES)
_API_VERSION, _KIND = _tag(1, _BYTES), _tag(2, _BYTES)
_TYPE_KEYS = frozenset({"apiVersion", "kind"})


def encode(body: Mapping[str, Any]) -> bytes | None:
    """`body` (a JSON object with apiVersion and kind) as a protobuf request body, or None
    when its kind or one of its fields is not in the tables (send it as JSON then)."""
    api_version, kind = body.get("apiVersion"), body.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return None
    message = KINDS.get((api_version, kind))
    if message is None:
        return None
    fields = {name: value for name, value in body.items() if name not in _TYPE_KEYS}
    try:
        raw = message.body(fields)
    except _Unencodable:
        return None
    type_meta = _string(_API_VERSION, api_version) + _string(_KIND, kind)
    return MAGIC + _delimited(_TYPE_META, type_meta) + _delimited(_RAW, raw)
