"""The feature gates of the local control plane (`dev-cluster up --feature-gates`,
`LocalCluster(gates=...)`): parsed, given to every component with the API versions they need
served, and each refusal of a component turned into one line naming the fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import ClassVar

import pytest

from kubesched.cli import devcluster
from kubesched.localcluster import (
    LocalCluster,
    LocalClusterError,
    devstate,
    flags,
    gates,
    paths,
)
from kubesched.localcluster import controller_manager as kcm
from kubesched.localcluster.pki import write_pki

TOPOLOGY = {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}


def test_gates_are_parsed_and_rendered_in_order() -> None:
    parsed = gates.parse("GenericWorkload=true, TopologyAwareWorkloadScheduling=true,A=false")
    assert parsed == {**TOPOLOGY, "A": False}
    assert gates.render(parsed) == f"{gates.TOPOLOGY_GATES},A=false"
    assert gates.enabled(parsed) == list(TOPOLOGY)
    assert gates.parse("") == {}


@pytest.mark.parametrize("text", ["GenericWorkload", "GenericWorkload=yes", "=true", "A-B=true"])
def test_a_malformed_pair_is_one_line_naming_the_form(text: str) -> None:
    with pytest.raises(LocalClusterError) as raised:
        gates.parse(text)
    message = str(raised.value)
    assert "\n" not in message
    assert message.endswith(
        f"is not Name=true|false; write e.g. --feature-gates={gates.TOPOLOGY_GATES}"
    )


def test_generic_workload_alone_gives_the_apiserver_what_it_always_had() -> None:
    assert gates.apiserver_args({"GenericWorkload": True}) == list(
        flags.GENERIC_WORKLOAD_APISERVER_ARGS
    )
    assert gates.apiserver_args({}) == []


def test_the_admission_plugins_kept_off_are_the_apiservers_defaults(tmp_path: Path) -> None:
    argv = flags.apiserver_args(
        pki=write_pki(tmp_path), token_file=tmp_path / "t", port=1, etcd_url="http://e"
    )
    assert f"--disable-admission-plugins={gates.BASE_ADMISSION_OFF}" in argv


def test_composite_pod_groups_are_served_in_v1alpha3() -> None:
    args = gates.apiserver_args({**TOPOLOGY, "CompositePodGroup": True})
    assert args[0] == f"--feature-gates={gates.TOPOLOGY_GATES},CompositePodGroup=true"
    assert args[1] == (
        "--runtime-config=scheduling.k8s.io/v1beta1=true,scheduling.k8s.io/v1alpha3=true"
    )
    # A gate turned off serves nothing.
    assert gates.apiserver_args({"GenericWorkload": False}) == [
        "--feature-gates=GenericWorkload=false"
    ]


def test_every_component_gets_the_gates() -> None:
    cluster = LocalCluster(gates=TOPOLOGY)
    assert cluster.generic_workload
    assert cluster._extra_apiserver_args[0] == f"--feature-gates={gates.TOPOLOGY_GATES}"
    assert cluster._gate_flag() == (f"--feature-gates={gates.TOPOLOGY_GATES}",)
    assert LocalCluster(generic_workload=True).gates == {"GenericWorkload": True}
    assert LocalCluster()._gate_flag() == ()
    assert kcm.OWN_GATES == "ControllerManagerReleaseLeaderElectionLockOnExit=true"


@pytest.mark.parametrize(
    ("refusal", "expected"),
    [
        (
            (
                "TopologyAwareWorkloadScheduling is enabled, but depends on features that are "
                "disabled: [GenericWorkload]"
            ),
            "add GenericWorkload=true",
        ),
        (
            (
                "CompositePodGroup is enabled, but depends on features that are disabled: "
                "[GenericWorkload TopologyAwareWorkloadScheduling]"
            ),
            "add GenericWorkload=true,TopologyAwareWorkloadScheduling=true",
        ),
        (
            "unrecognized feature gate: TopologyAwareScheduling",
            "did you mean TopologyAwareWorkloadScheduling?",
        ),
        (
            "unrecognized feature gate: Bogus",
            "drop it (`kube-scheduler --help` lists the gates it knows)",
        ),
    ],
)
def test_the_fix_of_a_refusal(refusal: str, expected: str) -> None:
    known = ["GenericWorkload", "TopologyAwareWorkloadScheduling", "CompositePodGroup"]
    assert gates.fix(refusal, known=lambda: known) == expected


def test_dev_cluster_up_refuses_a_malformed_gate_before_anything(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert devcluster.main(["up", "--feature-gates=GenericWorkload"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "kubesched dev-cluster: error: --feature-gates=GenericWorkload: 'GenericWorkload' is "
        f"not Name=true|false; write e.g. --feature-gates={gates.TOPOLOGY_GATES}"
    )


class _Recorded:
    """Records the options `up` gives the cluster; starts nothing."""

    options: ClassVar[dict[str, object]] = {}
    server = "https://127.0.0.1:1"
    logs_dir = Path("/x/logs")
    kubeconfig_path = Path("/x/kubeconfig")

    def __init__(self, **options: object) -> None:
        type(self).options = options

    def start(self) -> None:
        pass

    def start_default_scheduler(self) -> None:
        pass


def test_dev_cluster_up_gives_the_cluster_the_gates_and_names_them_for_kubesched(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(devcluster, "LocalCluster", _Recorded)
    monkeypatch.setattr(devstate, "load", lambda: None)
    monkeypatch.setattr(devstate, "reset_run_dir", lambda: Path("/x"))
    monkeypatch.setattr(devstate, "save", lambda _cluster: None)

    assert devcluster.main(["up", f"--feature-gates={gates.TOPOLOGY_GATES}"]) == 0

    assert _Recorded.options["gates"] == TOPOLOGY
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"feature gates {gates.TOPOLOGY_GATES} on in every component: run kubesched with "
        f"--feature-gates={gates.TOPOLOGY_GATES} too"
    )


def test_dev_cluster_status_names_the_gates(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv(paths.CACHE_ENV, str(tmp_path))
    devstate.state_file().parent.mkdir(parents=True)
    devstate.state_file().write_text(
        json.dumps(
            {
                "server": "https://127.0.0.1:1",
                "kubeconfig": "/k/kubeconfig",
                "ca_file": str(tmp_path / "ca.crt"),
                "token": "t",
                "processes": {},
                "feature_gates": gates.TOPOLOGY_GATES,
            }
        )
    )

    devcluster.main(["status"])  # 1: nothing answers at port 1

    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[2] == f"gates       {gates.TOPOLOGY_GATES}  (give kubesched the same --feature-gates)"
    )
