"""Building the extenders from the config (upstream `buildExtenders`)."""

from __future__ import annotations

from kubesched.apis.config import KubeSchedulerConfiguration, Profile
from kubesched.apis.extenders import Extender, ExtenderManagedResource
from kubesched.scheduler.extender_setup import build_extenders, with_ignored_resources
from tests.unit.api_fakes import FakeApi


def test_no_extenders_no_extender_cycle() -> None:
    assert build_extenders(KubeSchedulerConfiguration(), FakeApi()) is None


async def test_ignorable_extenders_come_last() -> None:
    config = KubeSchedulerConfiguration(
        extenders=(
            Extender(url_prefix="http://a", ignorable=True),
            Extender(url_prefix="http://b"),
            Extender(url_prefix="http://c", ignorable=True),
            Extender(url_prefix="http://d"),
        )
    )
    built = build_extenders(config, FakeApi())
    assert built is not None
    assert [e.name for e in built.all] == ["http://b", "http://d", "http://a", "http://c"]
    await built.close()


def test_resources_ignored_by_the_scheduler_replace_node_resources_fits_own() -> None:
    gpu = ExtenderManagedResource("example.com/gpu", ignored_by_scheduler=True)
    fpga = ExtenderManagedResource("example.com/fpga")
    config = KubeSchedulerConfiguration(
        profiles=(
            Profile(scheduler_name="a"),
            Profile(
                scheduler_name="b",
                plugin_config={
                    "NodeResourcesFit": {"ignoredResources": ["x.io/y"], "scoringStrategy": {}}
                },
            ),
        ),
        extenders=(Extender(url_prefix="http://e", managed_resources=(gpu, fpga)),),
    )
    first, second = with_ignored_resources(config).profiles
    assert first.plugin_config == {"NodeResourcesFit": {"ignoredResources": ["example.com/gpu"]}}
    assert second.plugin_config["NodeResourcesFit"] == {
        "ignoredResources": ["example.com/gpu"],
        "scoringStrategy": {},
    }
    plain = KubeSchedulerConfiguration(extenders=(Extender(url_prefix="http://e"),))
    assert with_ignored_resources(plain) is plain
