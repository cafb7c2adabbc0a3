# ruff: noqa: INP001, I001 - kept beside the plugin module, as its author would: `pytest test_prefer_label.py`
from kubesched.framework import NodeInfo
from kubesched.testing import FakeHandle, make_node, make_pod, run_filter_plugin, run_score_plugin

from prefer_label import PreferNodeLabel

KEY = "node-role.example.com/batch"
NODES = [
    NodeInfo(node=make_node().name("batch").label(KEY, "true").model()),
    NodeInfo(node=make_node().name("plain").model()),
]


def test_score_prefers_the_labelled_node() -> None:
    plugin = PreferNodeLabel(args={"key": KEY}, handle=FakeHandle())
    assert run_score_plugin(plugin, make_pod().model(), NODES) == {"batch": 100, "plain": 0}


def test_required_filters_the_other_nodes() -> None:
    plugin = PreferNodeLabel(args={"key": KEY, "required": True}, handle=FakeHandle())
    statuses = run_filter_plugin(plugin, make_pod().model(), NODES)
    assert statuses["batch"].is_success()
    assert statuses["plain"].message == f"node(s) didn't have label {KEY}"


def test_every_pod_signs_alike() -> None:
    plugin = PreferNodeLabel(args={"key": KEY}, handle=FakeHandle())
    assert plugin.sign_pod(make_pod().name("a").model()) == plugin.sign_pod(make_pod().model())
