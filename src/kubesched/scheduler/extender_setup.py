"""Building the configured extenders (upstream `buildExtenders`): one client each, the
ignorable ones last, and the resources they manage with `ignoredByScheduler` handed to
every profile's NodeResourcesFit as its `ignoredResources` (they replace the ones its args
name, as upstream's; `--write-config-to` shows the file's args, as kube-scheduler's)."""

from __future__ import annotations

import dataclasses
import logging

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.apis.extenders import EXTENDER
from kubesched.framework.logkv import kv
from kubesched.kube.api import KubeApi
from kubesched.kube.extender_http import ExtenderClient
from kubesched.runtime import Framework
from kubesched.scheduler.extender_cycle import Extenders
from kubesched.scheduler.extenders import HttpExtender

log = logging.getLogger(__name__)
FIT = "NodeResourcesFit"


def build_extenders(config: KubeSchedulerConfiguration, api: KubeApi) -> Extenders | None:
    """The config's extenders, or None without any (the cycle then never awaits). A TLS
    setting that cannot be used raises `ExtenderSetupError` (one line)."""
    if not config.extenders:
        return None
    built = []
    for extender in config.extenders:
        log.info("Creating extender", extra=kv(extender=extender.url_prefix))
        built.append(HttpExtender(extender, ExtenderClient(extender)))
    return Extenders(built, api)


def with_ignored_resources(config: KubeSchedulerConfiguration) -> KubeSchedulerConfiguration:
    """`config` with every profile's NodeResourcesFit ignoring the extenders' resources
    that have `ignoredByScheduler` (unchanged when there are none)."""
    ignored = [name for e in config.extenders for name in e.ignored_resources]
    if not ignored:
        return config
    profiles = tuple(
        dataclasses.replace(
            profile,
            plugin_config={
                **profile.plugin_config,
                FIT: {**profile.plugin_config.get(FIT, {}), "ignoredResources": ignored},
            },
        )
        for profile in config.profiles
    )
    return dataclasses.replace(config, profiles=profiles)


def consult(frameworks: dict[str, Framework], extenders: Extenders | None) -> None:
    """Tell each profile its pods go to the extenders too (no batching; pods they rejected
    are requeued by any event)."""
    if extenders is None:
        return
    for fw in frameworks.values():
        fw.consult_extenders(EXTENDER)
