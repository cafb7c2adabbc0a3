from __future__ import annotations

from typing import Any

import pytest

from kubesched.cache import SchedulerCache
from kubesched.model import Node, Pod
from kubesched.plugins import ImageLocality
from kubesched.plugins.helper.args import ArgsError
from kubesched.plugins.image_locality.plugin import calculate_priority, normalized_image_name
from kubesched.testing import FakeHandle, make_node, make_pod, run_score_plugin

MB = 1024 * 1024


def node(name: str, *images: tuple[list[str], int]) -> Node:
    obj = make_node().name(name).obj()
    obj["status"]["images"] = [{"names": names, "sizeBytes": size * MB} for names, size in images]
    return Node.from_json(obj)


def pod(*images: str, init: tuple[str, ...] = (), volumes: tuple[str, ...] = ()) -> Pod:
    obj = make_pod().obj()
    obj["spec"]["containers"] = [
        {"name": f"c{i}", "image": image} for i, image in enumerate(images)
    ]
    if init:
        obj["spec"]["initContainers"] = [
            {"name": f"i{i}", "image": im} for i, im in enumerate(init)
        ]
    if volumes:
        obj["spec"]["volumes"] = [
            {"name": f"v{i}", "image": {"reference": ref}} for i, ref in enumerate(volumes)
        ]
    return Pod.from_json(obj)


NODE_40_300_2000 = node(
    "n1",
    (["gcr.io/40:latest", "gcr.io/40:v1"], 40),
    (["gcr.io/300:latest", "gcr.io/300:v1"], 300),
    (["gcr.io/2000:latest"], 2000),
)
NODE_250_10 = node("n2", (["gcr.io/250:latest"], 250), (["gcr.io/10:latest", "gcr.io/10:v1"], 10))
NODE_4000_30 = node("n2", (["gcr.io/4000:latest"], 4000), (["gcr.io/30:latest"], 30))
NODE_600_40_900 = node(
    "n2", (["gcr.io/600:latest"], 600), (["gcr.io/40:latest"], 40), (["gcr.io/900:latest"], 900)
)
NODE_300_600_900 = node(
    "n3", (["gcr.io/300:latest"], 300), (["gcr.io/600:latest"], 600), (["gcr.io/900:latest"], 900)
)


def scores(incoming: Pod, *nodes: Node) -> dict[str, int]:
    handle = FakeHandle(nodes=list(nodes))
    plugin = ImageLocality(args={}, handle=handle)
    return run_score_plugin(plugin, incoming, handle.list_node_infos())


@pytest.mark.parametrize(
    ("incoming", "nodes", "expected"),
    [
        pytest.param(
            # n1: 40M spread to 1 of 2 nodes = 20M < 23M: 0; n2: 100 * (125M - 23M) / (2000M - 23M)
            pod("gcr.io/40", "gcr.io/250"),
            (NODE_40_300_2000, NODE_250_10),
            {"n1": 0, "n2": 5},
            id="larger-image-wins",
        ),
        pytest.param(
            pod("gcr.io/40", "gcr.io/300"),
            (NODE_40_300_2000, NODE_250_10),
            {"n1": 7, "n2": 0},
            id="two-images-on-one-node",
        ),
        pytest.param(
            pod("gcr.io/10", "gcr.io/4000"),
            (node("n1", (["gcr.io/4000:latest"], 4000)), NODE_250_10),
            {"n1": 100, "n2": 0},
            id="clamped-to-the-maximum",
        ),
        pytest.param(
            # 300 on n1, 600 and 900 on n2 and n3 (spread 2/3)
            pod("gcr.io/300", "gcr.io/600", "gcr.io/900"),
            (NODE_40_300_2000, NODE_600_40_900, NODE_300_600_900),
            {"n1": 5, "n2": 32, "n3": 39},
            id="spread-scales-the-size",
        ),
        pytest.param(
            pod("gcr.io/30", init=("gcr.io/300",)),
            (NODE_40_300_2000, NODE_4000_30),
            {"n1": 6, "n2": 0},
            id="init-containers-count",
        ),
        pytest.param(
            pod("gcr.io/30", volumes=("gcr.io/300",)),
            (NODE_40_300_2000, NODE_4000_30),
            {"n1": 6, "n2": 0},
            id="image-volumes-count",
        ),
        pytest.param(
            pod("gcr.io/40:v1"),
            (NODE_40_300_2000, NODE_250_10),
            {"n1": 0, "n2": 0},
            id="tagged-name",
        ),
        pytest.param(pod("gcr.io/nowhere"), (NODE_40_300_2000,), {}, id="no-node-has-it"),
    ],
)
def test_score(incoming: Pod, nodes: tuple[Node, ...], expected: dict[str, int]) -> None:
    assert scores(incoming, *nodes) == expected


@pytest.mark.parametrize(
    ("name", "normalized"),
    [
        ("nginx", "nginx:latest"),
        ("nginx:1.27", "nginx:1.27"),
        ("registry:5000/team/app", "registry:5000/team/app:latest"),
        ("registry:5000/team/app:v2", "registry:5000/team/app:v2"),
    ],
)
def test_normalized_image_name(name: str, normalized: str) -> None:
    assert normalized_image_name(name) == normalized


@pytest.mark.parametrize(
    ("total", "count", "expected"),
    [(0, 1, 0), (23 * MB, 1, 0), (1000 * MB, 1, 100), (5000 * MB, 2, 100), (511 * MB, 1, 49)],
)
def test_calculate_priority(total: int, count: int, expected: int) -> None:
    assert calculate_priority(total, count) == expected


@pytest.mark.parametrize("args", [{"x": 1}])
def test_takes_no_args(args: dict[str, Any]) -> None:
    with pytest.raises(ArgsError):
        ImageLocality(args=args, handle=FakeHandle())


APP = "registry.example.com/app:v1"


def test_parity_case_one_size_per_image_the_first_nodes() -> None:
    """Parity case `imagelocality-size-of-first-node.yaml`: n-a reports 30Mi, n-b 900Mi,
    n-c nothing; the cache keeps the size of the first node added (upstream
    `addNodeImageStates`), for both nodes."""
    n_a, n_b, n_c = node("n-a", ([APP], 30)), node("n-b", ([APP], 900)), node("n-c")
    # 30Mi * 2/3 = 20Mi < 23Mi: 0 on both nodes
    assert scores(pod(APP), n_a, n_b, n_c) == {"n-a": 0, "n-b": 0, "n-c": 0}
    # 900Mi * 2/3 = 600Mi: 100 * (600 - 23) / (1000 - 23) = 59 on both nodes
    assert scores(pod(APP), n_b, n_a, n_c) == {"n-a": 59, "n-b": 59, "n-c": 0}


def test_snapshot_keeps_each_nodes_count_as_of_its_last_change() -> None:
    """Upstream's incremental snapshot clones only changed nodes, so a node keeps the image
    count it saw when it last changed."""
    cache = SchedulerCache()
    cache.add_node(node("n1", ([APP], 900)))
    snapshot = cache.snapshot()
    cache.add_node(node("n2", ([APP], 900)))
    cache.update_snapshot(snapshot)
    counts = {info.name: info.image_states[APP].num_nodes for info in snapshot.node_infos}
    assert counts == {"n1": 1, "n2": 2}
    cache.add_pod(make_pod().name("p").uid("p").node("n1").model())
    cache.update_snapshot(snapshot)
    assert snapshot.get("n1").image_states[APP].num_nodes == 2  # type: ignore[union-attr]


def test_size_survives_until_every_node_listing_the_name_left() -> None:
    cache = SchedulerCache()
    cache.add_node(node("n1", ([APP], 30)))
    cache.add_node(node("n2", ([APP], 900)))
    cache.update_node(node("n1", ([APP], 500)))  # n2 still lists it: the size stays 30Mi
    assert cache.snapshot().get("n1").image_states[APP].size == 30 * MB  # type: ignore[union-attr]
    cache.remove_node(node("n1"))
    cache.remove_node(node("n2"))
    cache.add_node(node("n3", ([APP], 500)))
    assert cache.snapshot().get("n3").image_states[APP].size == 500 * MB  # type: ignore[union-attr]
