"""The GenericWorkload gate of the local control plane: kube-apiserver serving native
PodGroups, a second kube-scheduler config."""

from __future__ import annotations

from pathlib import Path

import yaml

from kubesched.localcluster import flags
from kubesched.localcluster.pki import write_pki


def test_the_gated_apiserver_serves_podgroups_without_their_finalizer(tmp_path: Path) -> None:
    pki = write_pki(tmp_path)
    argv = flags.apiserver_args(
        pki=pki,
        token_file=tmp_path / "tokens",
        port=6443,
        etcd_url="http://127.0.0.1:2379",
        extra=flags.GENERIC_WORKLOAD_APISERVER_ARGS,
    )
    assert "--feature-gates=GenericWorkload=true" in argv
    assert "--runtime-config=scheduling.k8s.io/v1beta1=true" in argv
    assert (
        "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition,PodGroupProtection"
        in argv
    )


def test_a_second_kube_scheduler_has_its_own_profile_and_lease(tmp_path: Path) -> None:
    text = flags.scheduler_config(
        kubeconfig_path=tmp_path / "k", scheduler_name="gang-oracle", lease_name="gang-oracle"
    )
    config = yaml.safe_load(text)
    assert config["profiles"] == [{"schedulerName": "gang-oracle"}]
    assert config["leaderElection"]["resourceName"] == "gang-oracle"
