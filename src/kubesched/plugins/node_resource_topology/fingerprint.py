"""The pod-set fingerprint an NRT object carries (github.com/k8stopologyawareschedwg/
podfingerprint v0.2.2, attribute `nodeTopologyPodsFingerprint`): the exporter signs the pods
it counted on the node, and the over-reserve cache trusts a fresh NRT object only when the
same signature comes out of the pods it knows there.

A pod hashes to XXH64(name, seed=XXH64(namespace)); the hashes, sorted, are written as
little-endian uint64s into one XXH64 (seed 0); the signature is `pfp0` + `v001` + its hex.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

ATTRIBUTE = "nodeTopologyPodsFingerprint"
ATTRIBUTE_METHOD = "nodeTopologyPodsFingerprintMethod"
ANNOTATION = "topology.node.k8s.io/fingerprint"
METHOD_WITH_EXCLUSIVE_RESOURCES = "with-exclusive-resources"
_PREFIX, _VERSION = "pfp0", "v001"

_P1, _P2, _P3 = 0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9
_P4, _P5 = 0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5
_MASK = (1 << 64) - 1


def _rotl(value: int, bits: int) -> int:
    return ((value << bits) | (value >> (64 - bits))) & _MASK


def _round(acc: int, lane: int) -> int:
    acc = (acc + lane * _P2) & _MASK
    return (_rotl(acc, 31) * _P1) & _MASK


def _merge(acc: int, value: int) -> int:
    acc ^= _round(0, value)
    return (acc * _P1 + _P4) & _MASK


def xxh64(data: bytes, seed: int = 0) -> int:
    """The XXH64 hash of `data`."""
    size, offset = len(data), 0
    if size >= 32:
        accs = [(seed + _P1 + _P2) & _MASK, (seed + _P2) & _MASK, seed, (seed - _P1) & _MASK]
        while offset + 32 <= size:
            lanes = struct.unpack_from("<4Q", data, offset)
            accs = [_round(a, lane) for a, lane in zip(accs, lanes, strict=True)]
            offset += 32
        acc = _rotl(accs[0], 1) + _rotl(accs[1], 7) + _rotl(accs[2], 12) + _rotl(accs[3], 18)
        acc &= _MASK
        for each in accs:
            acc = _merge(acc, each)
    else:
        acc = (seed + _P5) & _MASK
    acc = (acc + size) & _MASK
    while offset + 8 <= size:
        (lane,) = struct.unpack_from("<Q", data, offset)
        acc = ((_rotl(acc ^ _round(0, lane), 27) * _P1) + _P4) & _MASK
        offset += 8
    if offset + 4 <= size:
        (word,) = struct.unpack_from("<I", data, offset)
        acc = ((_rotl(acc ^ (word * _P1 & _MASK), 23) * _P2) + _P3) & _MASK
        offset += 4
    for byte in data[offset:]:
        acc = (_rotl(acc ^ (byte * _P5 & _MASK), 11) * _P1) & _MASK
    return _avalanche(acc)


def _avalanche(acc: int) -> int:
    acc = ((acc ^ (acc >> 33)) * _P2) & _MASK
    acc = ((acc ^ (acc >> 29)) * _P3) & _MASK
    return acc ^ (acc >> 32)


def sign(pods: Iterable[tuple[str, str]]) -> str:
    """The signature of a set of (namespace, name) pods."""
    hashes = sorted(xxh64(name.encode(), xxh64(namespace.encode())) for namespace, name in pods)
    digest = xxh64(b"".join(struct.pack("<Q", h) for h in hashes))
    return f"{_PREFIX}{_VERSION}{digest:016x}"


def matches(pods: Iterable[tuple[str, str]], expected: str) -> bool:
    """Whether `expected` is a well-formed v001 signature of exactly these pods."""
    if len(expected) < 16 or expected[:4] != _PREFIX or expected[4:8] != _VERSION:
        return False
    return sign(pods) == expected
