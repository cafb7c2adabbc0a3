"""The queue's fair order built from the profiles' plugins (`scheduler.fair_order`): none
without a plugin that opts in; groups per profile; a plugin that raises costs its pods
only their fair place (no group, share 0), logged once."""

from __future__ import annotations

import logging
from typing import cast

import pytest

from kubesched.model import Pod
from kubesched.runtime import Framework
from kubesched.runtime.framework import PluginLists
from kubesched.scheduler.fair_order import fair_order
from kubesched.testing import make_pod


class Teams:
    """A FairQueueing: a pod's group is its namespace; shares from a dict."""

    def __init__(self, shares: dict[str, float], *, broken: bool = False) -> None:
        self.shares = shares
        self.broken = broken

    def fairness_group(self, pod: Pod) -> str | None:
        if self.broken:
            raise RuntimeError("boom")
        return pod.namespace if pod.namespace in self.shares else None

    def dominant_share(self, group: str) -> float:
        if self.broken:
            raise RuntimeError("boom")
        return self.shares[group]


class Plugin:
    """A plugin with `fair_queueing()`, on or off."""

    name = "Teams"

    def __init__(self, source: Teams | None) -> None:
        self.source = source

    def fair_queueing(self) -> Teams | None:
        return self.source


class _Framework:
    def __init__(self, *plugins: object) -> None:
        self.plugins = PluginLists(pre_filter=list(plugins), reserve=list(plugins))  # type: ignore[arg-type]


def frameworks(**profiles: object) -> dict[str, Framework]:
    return {name: cast("Framework", _Framework(plugin)) for name, plugin in profiles.items()}


def pod(namespace: str, scheduler: str) -> Pod:
    return make_pod().name("p").namespace(namespace).scheduler(scheduler).model()


def test_no_order_without_a_plugin_that_opts_in() -> None:
    assert fair_order(frameworks(one=Plugin(None), two=object())) is None


def test_groups_are_per_profile_and_shares_read_live() -> None:
    teams = Teams({"a": 0.5})
    order = fair_order(frameworks(fair=Plugin(teams), plain=Plugin(None)))
    assert order is not None
    assert order.group_of(pod("a", "fair")) == ("fair", "a")
    assert order.group_of(pod("b", "fair")) is None
    assert order.group_of(pod("a", "plain")) is None
    assert order.share_of(("fair", "a")) == 0.5
    teams.shares["a"] = 2.0
    assert order.share_of(("fair", "a")) == 2.0


def test_a_plugin_that_raises_is_read_as_no_group_and_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    order = fair_order(frameworks(fair=Plugin(Teams({}, broken=True))))
    assert order is not None
    with caplog.at_level(logging.ERROR):
        assert order.group_of(pod("a", "fair")) is None
        assert order.share_of(("fair", "a")) == 0.0
    assert [r.getMessage() for r in caplog.records] == ["fair queueing failed; reading no group"]
