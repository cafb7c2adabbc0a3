"""Kubernetes' protobuf wire format for the objects kubesched writes on every pod.

kube-scheduler's clients send `application/vnd.kubernetes.protobuf`
(`clientConnection.contentType`'s default), which the API server decodes with less CPU than
JSON. kubesched writes two objects per scheduled pod, the `v1` Binding and the
`events.k8s.io/v1` Event, so those two kinds (and the messages they hold) are encoded here;
everything else, and any body with a field these tables do not know, stays JSON (`encode`
answers None), so a field can never be silently dropped. Reads and watches stay JSON:
orjson decodes them faster than Python decodes protobuf.

A body is the magic `k8s\\0` and a `runtime.Unknown` {typeMeta, raw}, as the API server's
protobuf serializer writes it; field numbers are those of the API's `generated.proto`. Fields
are written in the JSON object's order (a protobuf reader takes them in any order), so the
encoding is one pass over the body.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

import orjson

from kubesched.apis.config import JSON_CONTENT_TYPE as JSON
from kubesched.apis.config import PROTOBUF_CONTENT_TYPE as PROTOBUF
from kubesched.errors import KubeschedError

__all__ = ["KINDS", "PROTOBUF", "encode", "encode_body"]

MAGIC = b"k8s\x00"

_VARINT, _BYTES = 0, 2
_ONE_BYTE = tuple(bytes((value,)) for value in range(0x80))


class _Unencodable(KubeschedError):
    """A value these tables cannot encode: the caller sends JSON instead."""


def _varint(value: int) -> bytes:
    if 0 <= value < 0x80:
        return _ONE_BYTE[value]
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
    if type(value) is not str:
        raise _Unencodable(value)
    return _delimited(tag, value.encode())


def _integer(tag: bytes, value: Any) -> bytes:
    if type(value) is not int:  # a bool is not a count
        raise _Unencodable(value)
    return tag + _varint(value)


_SECONDS, _NANOS = _tag(1, _VARINT), _tag(2, _VARINT)


def _micro_time(tag: bytes, value: Any) -> bytes:
    """An RFC 3339 time (`2026-12-05T12:00:00.123456Z`) as MicroTime {seconds, nanos}."""
    if type(value) is not str:
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
    if type(value) is not dict:
        raise _Unencodable(value)
    return b"".join(
        _delimited(tag, _string(_KEY, key) + _string(_VALUE, item))
        for key, item in sorted(value.items())
    )


_SKIP = b""
"""The tag of a JSON field that has no protobuf field (apiVersion and kind, in TypeMeta)."""


class Message:
    """One message type: its fields by JSON name (a string field needs no writer)."""

    __slots__ = ("_fields",)

    def __init__(
        self, fields: Mapping[str, tuple[int, Writer | Message | None]], *, top_level: bool = False
    ) -> None:
        """`top_level`: an object of its own, whose apiVersion and kind (in Unknown's
        typeMeta) are skipped."""
        self._fields = {
            name: (_tag(number, _VARINT if writer is _integer else _BYTES), writer)
            for name, (number, writer) in fields.items()
        }
        if top_level:
            self._fields.update(apiVersion=(_SKIP, None), kind=(_SKIP, None))

    def body(self, value: Any) -> bytes:
        """The message's bytes (without tag and length)."""
        if type(value) is not dict:
            raise _Unencodable(value)
        fields, out = self._fields, bytearray()
        for name, item in value.items():
            spec = fields.get(name)
            if spec is None:
                raise _Unencodable(name)
            tag, writer = spec
            if item is None or not tag:
                continue
            if writer is not None:
                out += writer(tag, item)
            elif type(item) is str:
                data = item.encode()
                out += tag
                out += _varint(len(data))
                out += data
            else:
                raise _Unencodable(item)
        return bytes(out)

    def __call__(self, tag: bytes, value: Any) -> bytes:
        return _delimited(tag, self.body(value))


_OBJECT_META = Message(
    {
        "name": (1, None),
        "generateName": (2, None),
        "namespace": (3, None),
        "uid": (5, None),
        "resourceVersion": (6, None),
        "labels": (11, _string_map),
        "annotations": (12, _string_map),
    }
)
_OBJECT_REFERENCE = Message(
    {
        "kind": (1, None),
        "namespace": (2, None),
        "name": (3, None),
        "uid": (4, None),
        "apiVersion": (5, None),
        "resourceVersion": (6, None),
        "fieldPath": (7, None),
    }
)
_BINDING = Message(
    {"metadata": (1, _OBJECT_META), "target": (2, _OBJECT_REFERENCE)}, top_level=True
)
_EVENT_SERIES = Message({"count": (1, _integer), "lastObservedTime": (2, _micro_time)})
_EVENT = Message(
    {
        "metadata": (1, _OBJECT_META),
        "eventTime": (2, _micro_time),
        "series": (3, _EVENT_SERIES),
        "reportingController": (4, None),
        "reportingInstance": (5, None),
        "action": (6, None),
        "reason": (7, None),
        "regarding": (8, _OBJECT_REFERENCE),
        "related": (9, _OBJECT_REFERENCE),
        "note": (10, None),
        "type": (11, None),
    },
    top_level=True,
)

_TYPE_META, _RAW = _tag(1, _BYTES), _tag(2, _BYTES)


def _type_meta(api_version: str, kind: str) -> bytes:
    """Unknown.typeMeta, whole: TypeMeta {apiVersion = 1, kind = 2}."""
    return _delimited(
        _TYPE_META, _string(_tag(1, _BYTES), api_version) + _string(_tag(2, _BYTES), kind)
    )


KINDS: dict[tuple[str, str], tuple[bytes, Message]] = {
    (api_version, kind): (MAGIC + _type_meta(api_version, kind), message)
    for (api_version, kind), message in {
        ("v1", "Binding"): _BINDING,
        ("events.k8s.io/v1", "Event"): _EVENT,
    }.items()
}
"""The (apiVersion, kind) pairs `encode` writes as protobuf: the body's fixed start (magic and
type meta) and the message."""


def encode(body: Mapping[str, Any]) -> bytes | None:
    """`body` (a JSON object with apiVersion and kind) as a protobuf request body, or None
    when its kind or one of its fields is not in the tables (send it as JSON then)."""
    known = KINDS.get((body.get("apiVersion", ""), body.get("kind", "")))
    if known is None:
        return None
    start, message = known
    try:
        raw = message.body(body)
    except (_Unencodable, UnicodeEncodeError):  # a lone surrogate: JSON refuses it too
        return None
    return start + _RAW + _varint(len(raw)) + raw


def encode_body(body: Any, content_type: str, *, protobuf: bool) -> tuple[bytes | None, str]:
    """A request's body and its content type: protobuf when the client speaks it (`protobuf`)
    and the body's kind has an encoding here, else JSON (or the patch type asked for)."""
    if body is None:
        return None, content_type
    if protobuf and content_type == JSON and isinstance(body, dict):
        encoded = encode(body)
        if encoded is not None:
            return encoded, PROTOBUF
    return orjson.dumps(body), content_type
