"""`Pod.on_node` is `dataclasses.replace(pod, node_name=...)`, built positionally: every
field of Pod must stay an `__init__` argument, in order."""

from __future__ import annotations

import dataclasses

from kubesched.model import Pod
from kubesched.testing import make_pod


def test_every_field_of_pod_is_an_init_argument() -> None:
    assert all(each.init for each in dataclasses.fields(Pod))


def test_on_node_equals_replace_and_leaves_the_pod_alone() -> None:
    pod = (
        make_pod()
        .name("p")
        .uid("u")
        .label("app", "web")
        .req(cpu="1", memory="1Gi")
        .node_selector(disk="ssd")
        .toleration("k", "v", effect="NoSchedule")
        .model()
    )
    placed = pod.on_node("n1")
    assert placed == dataclasses.replace(pod, node_name="n1")
    assert placed is not pod
    assert pod.node_name == ""
