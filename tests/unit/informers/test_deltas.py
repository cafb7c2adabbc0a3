"""The informer process's delta frames: model objects come back equal, frames split and
join at any byte, a corrupt stream is refused."""

from __future__ import annotations

import pickle
import pickletools
import struct
import types

import pytest

from kubesched.informers.deltas import (
    ADDED,
    HEALTH,
    LISTED,
    DeltaError,
    DeltaReader,
    DeltaWriter,
    encode,
)
from kubesched.model import Node, Pod
from kubesched.testing import make_node, make_pod


def rich_pod() -> Pod:
    builder = (
        make_pod()
        .name("web-0")
        .namespace("team-a")
        .uid("uid-web-0")
        .label("app", "web")
        .req(cpu="500m", memory="1Gi", **{"example.com/gpu": "1"})
        .init_container("init", requests={"cpu": "1"})
        .init_container("proxy", requests={"cpu": "100m"}, sidecar=True)
        .host_port(8080)
        .node_selector(disk="ssd")
        .toleration("dedicated", "gpu", effect="NoSchedule")
        .required_node_affinity("zone", "In", ["a", "b"])
        .spread_constraint(1, "zone", match_labels={"app": "web"}, minDomains=2)
        .owner("StatefulSet", "web")
        .claim("data")
        .volume({"name": "cache", "emptyDir": {}})
        .volume({"name": "ro", "gcePersistentDisk": {"pdName": "pd", "readOnly": True}})
        .scheduling_gate("wait")
        .priority(100)
    )
    obj = builder.obj()
    obj["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-tpl"}]
    obj["spec"]["affinity"]["podAntiAffinity"] = {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "host"}
        ]
    }
    obj["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return Pod.from_json(obj)


def rich_node() -> Node:
    return (
        make_node()
        .name("n1")
        .label("zone", "a")
        .capacity(cpu="8", memory="32Gi", pods="110")
        .taint("dedicated", "gpu")
        .image("registry.k8s.io/pause:3.10", 1000)
        .model()
    )


def test_model_objects_come_back_equal() -> None:
    pod, node = rich_pod(), rich_node()
    assert pod.affinity is not None
    assert pod.volumes
    assert pod.claim_sources
    assert any(isinstance(v.source, types.MappingProxyType) for v in pod.volumes)
    deltas = [
        (0, LISTED, [pod, pod.on_node("n1")]),
        (1, ADDED, node),
        (0, HEALTH, (True, False, "", 0.0)),
    ]
    (loaded,) = DeltaReader().feed(encode(deltas))
    assert loaded == deltas
    loaded_pod = loaded[0][2][0]
    assert loaded_pod is not pod
    assert type(loaded_pod) is Pod
    assert loaded_pod.key == "team-a/web-0"
    assert loaded_pod.requests == pod.requests


def test_model_dataclasses_load_by_calling_their_class() -> None:
    """The compact form: each model object is its class called with its field values (no
    slot-by-slot state to set), so loading one costs one constructor call."""
    frame = encode([(0, ADDED, rich_pod())])
    ops = {op.name for op, _, _ in pickletools.genops(frame[4:])}
    assert "REDUCE" in ops
    assert "BUILD" not in ops
    assert "NEWOBJ" not in ops


def test_frames_split_at_any_byte_and_several_in_one_read() -> None:
    pods = [make_pod().name(f"p{i}").uid(f"u{i}").model() for i in range(3)]
    stream = b"".join(encode([(0, ADDED, p)]) for p in pods)
    for cut in range(len(stream)):
        reader = DeltaReader()
        frames = reader.feed(stream[:cut]) + reader.feed(stream[cut:])
        assert [d[0][2] for d in frames] == pods


def test_a_corrupt_stream_is_refused() -> None:
    with pytest.raises(DeltaError):
        DeltaReader().feed(struct.pack(">I", 4) + b"junk")
    with pytest.raises(DeltaError):
        DeltaReader().feed(struct.pack(">I", 1 << 30))
    body = pickle.dumps({"not": "a list"})
    with pytest.raises(DeltaError):
        DeltaReader().feed(struct.pack(">I", len(body)) + body)
    assert DeltaReader().feed(encode([])) == [[]]


def test_a_writer_sends_each_immutable_value_once_and_the_reader_shares_it() -> None:
    writer, reader = DeltaWriter(), DeltaReader()
    pods = [
        make_pod().name(f"p{i}").uid(f"u{i}").toleration("k", "v").host_port(80).model()
        for i in range(3)
    ]
    frames = [writer.encode([(0, ADDED, pod)]) for pod in pods]
    assert len(frames[1]) < len(frames[0])  # the tolerations and ports went as numbers
    loaded = [deltas[0][2] for frame in frames for deltas in reader.feed(frame)]
    assert loaded == pods
    assert loaded[0].tolerations is loaded[2].tolerations
    assert loaded[0].host_ports is loaded[1].host_ports
    assert loaded[0].labels is not loaded[1].labels  # mutable values are never shared
    # Values a dict makes unhashable (a volume's source) go in full every time.
    with_volume = [
        make_pod().name(f"v{i}").volume({"name": "e", "emptyDir": {}}).model() for i in range(2)
    ]
    again = [d[0][2] for p in with_volume for d in reader.feed(writer.encode([(0, ADDED, p)]))]
    assert again == with_volume
