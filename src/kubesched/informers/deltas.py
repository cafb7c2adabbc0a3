"""The deltas the informer process (`kubesched.informers.process`) sends the scheduler.

A frame is a 4-byte big-endian length, then a pickle (protocol 5) of a list of deltas
`(informer index, op, payload)`, the deltas of one turn of the child's event loop:

- `LIST_STARTED` (payload None): a list begins; pages before it (of a list that failed) are
  dropped;
- `LISTED`: a list page, a list of decoded objects;
- `LIST_ENDED`: the list's resourceVersion; the store becomes the listed objects (adds,
  updates and deletes between them reach the handler, as `Reflector._replace`);
- `ADDED`, `MODIFIED`, `DELETED`: one decoded watch object;
- `HEALTH`: the child reflector's `(synced, stalled, error, failing_for)`, every second.

The objects are the slim model structs (`kubesched.model`), pickled by a table that turns
each dataclass of the model into `(class, field values)`, so loading one is one call of the
class, and whose immutable field values (tolerations, images, affinity, ...) are sent once
and then referred to by number (`_Sharer`). Only the scheduler's own child process writes
these frames: the pipe is trusted, as the process is.
"""

from __future__ import annotations

import dataclasses
import io
import pickle
import struct
import types
from collections.abc import Callable
from typing import Any

from kubesched.errors import KubeschedError

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 256 * 1024 * 1024
"""A larger length means a corrupt stream."""
MODEL_PACKAGE = "kubesched.model"

LIST_STARTED, LISTED, LIST_ENDED = "S", "L", "E"
ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"
HEALTH = "H"
WATCH_OPS = frozenset({ADDED, MODIFIED, DELETED})

Delta = tuple[int, str, Any]
Reducer = Callable[[Any], tuple[Any, tuple[Any, ...]]]


class DeltaError(KubeschedError):
    """The byte stream is not a sequence of delta frames."""


def mapping_proxy(values: dict[Any, Any]) -> types.MappingProxyType[Any, Any]:
    """Rebuilds a read-only mapping of a model object (pickle cannot name its type)."""
    return types.MappingProxyType(values)


def _reduce_proxy(proxy: types.MappingProxyType[Any, Any]) -> tuple[Any, tuple[Any, ...]]:
    return mapping_proxy, (dict(proxy),)


class _Sharer:
    """The child's side of shared values: an immutable field value (a non-empty tuple, a
    frozen model struct: tolerations, images, host ports, spread constraints, affinity) is
    sent in full once with a number, then as that number; the reader keeps the first copy,
    so the pods of one template share it (less to load, less memory). Values that cannot be
    hashed are sent in full; after MAX_SHARED values, new ones too."""

    def __init__(self, *, limit: int) -> None:
        self._numbers: dict[Any, int] = {}
        self._limit = limit

    def wrap(self, value: Any) -> Any:
        if (
            not value
            or len(self._numbers) >= self._limit
            or not (type(value) is tuple or _frozen(type(value)))
        ):
            return value
        try:
            number = self._numbers.get(value)
        except TypeError:  # holds a dict (a volume's source): not hashable
            return value
        if number is not None:
            return _Ref(number)
        number = self._numbers[value] = len(self._numbers)
        return _Def(number, value)


@dataclasses.dataclass(slots=True)
class _Ref:
    number: int


@dataclasses.dataclass(slots=True)
class _Def:
    number: int
    value: Any


MAX_SHARED = 16384
_READING: list[Any] = []
"""The shared values of the reader loading a frame now (loading is synchronous)."""


def shared(number: int) -> Any:
    """A value sent before (called by the unpickler)."""
    return _READING[number]


def define(number: int, value: Any) -> Any:
    """A value sent for the first time (called by the unpickler)."""
    if number == len(_READING):
        _READING.append(value)
    return value


def _frozen(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and params.frozen and cls.__module__.startswith(MODEL_PACKAGE)


def _positional(cls: type, wrap: Callable[[Any], Any]) -> Reducer | None:
    """`(class, field values)` for a model dataclass whose fields are all `__init__`
    arguments in order and that has no `__post_init__`; None for any other type."""
    if not dataclasses.is_dataclass(cls) or not cls.__module__.startswith(MODEL_PACKAGE):
        return None
    fields = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or not all(f.init for f in fields):
        return None
    names = tuple(f.name for f in fields)

    def reduce(obj: Any) -> tuple[Any, tuple[Any, ...]]:
        return cls, tuple([wrap(getattr(obj, name)) for name in names])

    return reduce


class _Table(dict[type, Reducer]):
    """Pickler.dispatch_table: a reducer per model dataclass, made on first sight."""

    def __init__(self, sharer: _Sharer) -> None:
        super().__init__(
            {
                types.MappingProxyType: _reduce_proxy,
                _Ref: lambda ref: (shared, (ref.number,)),
                _Def: lambda new: (define, (new.number, new.value)),
            }
        )
        self._others: set[type] = set()
        self._wrap = sharer.wrap

    def __missing__(self, cls: type) -> Reducer:
        if cls not in self._others:
            reducer = _positional(cls, self._wrap)
            if reducer is not None:
                self[cls] = reducer
                return reducer
            self._others.add(cls)
        raise KeyError(cls)


class DeltaWriter:
    """Encodes frames for one reader (the values it shares are numbered for that reader;
    `share=False`: none, for frames any reader may load)."""

    def __init__(self, *, share: bool = True) -> None:
        self._table = _Table(_Sharer(limit=MAX_SHARED if share else 0))

    def encode(self, deltas: list[Delta]) -> bytes:
        """One frame holding `deltas`."""
        buffer = io.BytesIO()
        buffer.write(HEADER.pack(0))
        pickler = pickle.Pickler(buffer, protocol=5)
        pickler.dispatch_table = self._table
        pickler.dump(deltas)
        frame = buffer.getbuffer()
        HEADER.pack_into(frame, 0, len(frame) - HEADER.size)
        return bytes(frame)


def encode(deltas: list[Delta]) -> bytes:
    """One frame that shares no value with another (settings, a single frame)."""
    return DeltaWriter(share=False).encode(deltas)


class DeltaReader:
    """Splits a byte stream into frames and loads each into its list of deltas (one reader
    per child: it keeps the values that child shared)."""

    def __init__(self) -> None:
        self._tail = b""
        self._shared: list[Any] = []

    def feed(self, data: bytes) -> list[list[Delta]]:
        """The complete frames `data` finishes (a frame's tail may come in a later call)."""
        if self._tail:
            data, self._tail = self._tail + data, b""
        frames: list[list[Delta]] = []
        start, end_of_data = 0, len(data)
        view = memoryview(data)
        while end_of_data - start >= HEADER.size:
            (size,) = HEADER.unpack_from(data, start)
            if size > MAX_FRAME_BYTES:
                raise DeltaError(f"a frame of {size} bytes")
            end = start + HEADER.size + size
            if end > end_of_data:
                break
            frames.append(self._load(view[start + HEADER.size : end]))
            start = end
        if start < end_of_data:
            self._tail = bytes(view[start:])
        return frames

    def _load(self, body: memoryview) -> list[Delta]:
        global _READING  # noqa: PLW0603 - the unpickler's callbacks read it
        _READING = self._shared
        try:
            deltas = pickle.loads(body)  # noqa: S301 - written by our own child process
        except Exception as exc:
            raise DeltaError(f"an unreadable frame: {exc!r}") from exc
        if not isinstance(deltas, list):
            raise DeltaError(f"a frame of {type(deltas).__name__}, not a list of deltas")
        return deltas
