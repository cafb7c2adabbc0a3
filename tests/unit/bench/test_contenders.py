"""How the bench starts each contender: extra scheduler flags reach both schedulers only."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from kubesched.bench.contenders import ClientLimits, contender_argv, is_contender, source_tree

LIMITS = ClientLimits(scheduler_name="bench", qps=100, burst=100)
FLAG = "--pod-max-in-unschedulable-pods-duration=5s"


def cluster(tmp_path: Path) -> SimpleNamespace:
    binaries = SimpleNamespace(kube_scheduler=tmp_path / "kube-scheduler")
    return SimpleNamespace(
        workdir=tmp_path, kubeconfig_path=tmp_path / "admin.kubeconfig", binaries=binaries
    )


def test_both_schedulers_get_the_extra_flags_after_their_own(tmp_path: Path) -> None:
    for name in ("kubesched", "kube-scheduler"):
        argv = contender_argv(name, cluster(tmp_path), LIMITS, (FLAG,))  # type: ignore[arg-type]
        assert argv[-3:] == [f"--config={tmp_path / f'{name}.yaml'}", "--secure-port=0", FLAG]


def test_the_null_binder_takes_no_scheduler_flags(tmp_path: Path) -> None:
    argv = contender_argv("null-binder", cluster(tmp_path), LIMITS, (FLAG,))  # type: ignore[arg-type]
    assert FLAG not in argv


def test_another_checkout_runs_from_its_src_with_a_file_name_of_its_own(tmp_path: Path) -> None:
    tree = tmp_path / "old"
    (tree / "src" / "kubesched").mkdir(parents=True)
    name = f"kubesched@{tree}"
    assert is_contender(name)
    assert source_tree(name) == tree / "src"
    assert not is_contender(f"kubesched@{tmp_path / 'missing'}")
    assert not is_contender("kube-schedulerr")
    argv = contender_argv(name, cluster(tmp_path), LIMITS)  # type: ignore[arg-type]
    assert argv[1:3] == ["-m", "kubesched"]
    assert argv[3] == f"--config={tmp_path / 'kubesched-old.yaml'}"


def test_a_metrics_port_makes_kube_scheduler_serve_to_the_admin_kubeconfig(tmp_path: Path) -> None:
    argv = contender_argv("kube-scheduler", cluster(tmp_path), LIMITS, (FLAG,), metrics_port=8)  # type: ignore[arg-type]
    kubeconfig = tmp_path / "admin.kubeconfig"
    assert "--secure-port=8" in argv
    assert "--secure-port=0" not in argv
    assert f"--authentication-kubeconfig={kubeconfig}" in argv
    assert f"--authorization-kubeconfig={kubeconfig}" in argv
    assert f"--cert-dir={tmp_path / 'kube-scheduler-serving'}" in argv
    assert argv[-1] == FLAG
