"""doctor checks the volume plugins' permissions when a profile has them (the defaults)."""

from __future__ import annotations

from pathlib import Path

from kubesched.apis.config import PluginRef, PluginSet
from kubesched.cli.doctor import target_of
from kubesched.config import load_config
from kubesched.doctor.permissions import scheduler_needs
from kubesched.doctor.target import Target
from kubesched.manifests.preemption import VOLUME_PLUGINS, volumes_enabled

VOLUMES = {
    ("list", "", "persistentvolumeclaims"),
    ("watch", "", "persistentvolumes"),
    ("patch", "", "persistentvolumes"),
    ("patch", "", "persistentvolumeclaims"),
    ("list", "storage.k8s.io", "csinodes"),
    ("watch", "storage.k8s.io", "csistoragecapacities"),
    ("list", "storage.k8s.io", "volumeattachments"),
}


def needs(target: Target) -> set[tuple[str, str, str]]:
    return {(n.verb, n.group, n.resource) for n in scheduler_needs(target) if n.required}


def test_the_default_profile_needs_the_volume_permissions(tmp_path: Path) -> None:
    config = load_config(["--scheduler-name=s"], environ={}, namespace_file=tmp_path / "no").config
    target = target_of(config, None)
    assert target.volumes
    assert needs(target) >= VOLUMES


def test_a_profile_without_volume_plugins_needs_none_of_them(tmp_path: Path) -> None:
    config = load_config(["--scheduler-name=s"], environ={}, namespace_file=tmp_path / "no").config
    off = PluginSet(disabled=tuple(PluginRef(name) for name in VOLUME_PLUGINS))
    profile = config.profiles[0]
    profile = type(profile)(
        scheduler_name="s", plugins={**profile.plugins, "multiPoint": off}, plugin_config={}
    )
    assert not volumes_enabled(type(config)(profiles=(profile,)))
    assert not needs(Target(scheduler_names=("s",), lease_namespace="n", lease_name="s")) & VOLUMES
