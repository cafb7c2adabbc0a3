"""doctor checks preemption's permissions when a profile has DefaultPreemption (a default)."""

from __future__ import annotations

from pathlib import Path

from kubesched.cli.doctor import target_of
from kubesched.config import load_config
from kubesched.doctor.permissions import scheduler_needs
from kubesched.doctor.target import Target

PREEMPTION = {
    ("list", "policy", "poddisruptionbudgets"),
    ("watch", "policy", "poddisruptionbudgets"),
    ("delete", "", "pods"),
}


def needs(target: Target) -> set[tuple[str, str, str]]:
    return {(n.verb, n.group, n.resource) for n in scheduler_needs(target) if n.required}


def test_the_default_profile_needs_preemptions_permissions(tmp_path: Path) -> None:
    config = load_config(["--scheduler-name=s"], environ={}, namespace_file=tmp_path / "no").config
    target = target_of(config, None)
    assert target.preemption
    assert needs(target) >= PREEMPTION


def test_without_preemption_they_are_not_asked_for() -> None:
    target = Target(scheduler_names=("s",), lease_namespace="ns", lease_name="s")
    assert not needs(target) & PREEMPTION


def test_the_namespace_informer_is_always_needed() -> None:
    target = Target(scheduler_names=("s",), lease_namespace="ns", lease_name="s")
    assert needs(target) >= {("list", "", "namespaces"), ("watch", "", "namespaces")}


def test_default_spreading_informers_are_needed() -> None:
    """Services, RCs, ReplicaSets and StatefulSets: default topology spreading's informers."""
    wanted = {
        (verb, group, resource)
        for group, resource in (
            ("", "services"),
            ("", "replicationcontrollers"),
            ("apps", "replicasets"),
            ("apps", "statefulsets"),
        )
        for verb in ("list", "watch")
    }
    assert needs(Target(scheduler_names=("s",), lease_namespace="ns", lease_name="s")) >= wanted
