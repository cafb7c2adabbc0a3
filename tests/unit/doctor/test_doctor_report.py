"""The runner, the table and JSON output, the exit code, the target and the CLI parsing."""

from __future__ import annotations

import json

import pytest

from kubesched.cli import doctor as doctor_cli
from kubesched.config import load_config
from kubesched.doctor import CheckStatus, ServiceAccount, as_json, exit_code, run_checks, table
from kubesched.doctor.durations import ago, expires, short
from kubesched.doctor.result import CheckResult
from kubesched.kube.errors import ConnectionFailed, Forbidden
from tests.unit.doctor.doctor_fakes import NOW, FakeCluster, correct_rules, lease, pod, target


def healthy_cluster() -> FakeCluster:
    cluster = FakeCluster(me="alice")
    cluster.grant("alice", correct_rules("sched-ns", "my-scheduler"))
    cluster.add(lease("kube-system", "kube-scheduler"))
    cluster.add(lease("sched-ns", "my-scheduler", names="my-scheduler"))
    return cluster


async def test_all_checks_pass_on_a_healthy_cluster() -> None:
    results = await run_checks(healthy_cluster(), target(), server="https://k8s", now=NOW)
    assert [r.name for r in results] == [
        "api-server",
        "served-apis",
        "lease-collision",
        "lease-holder",
        "permissions",
        "pending-pods",
        "default-scheduler",
    ]
    assert {r.status for r in results} == {CheckStatus.OK}, [r.detail for r in results]
    assert exit_code(results) == 0
    assert "https://k8s answers as alice, Kubernetes v1.37.2" in results[0].detail


async def test_an_unreachable_api_server_stops_the_run() -> None:
    cluster = FakeCluster()
    cluster.errors["/version"] = ConnectionFailed("GET /version: connection refused")
    results = await run_checks(cluster, target(), server="https://k8s", now=NOW)
    assert len(results) == 1
    assert results[0].status is CheckStatus.FAIL
    assert "cannot reach https://k8s" in results[0].detail
    assert exit_code(results) == 1


async def test_a_check_that_cannot_read_warns_instead_of_crashing() -> None:
    cluster = healthy_cluster()
    cluster.errors["/api/v1/pods"] = Forbidden(403, "Forbidden", "pods is forbidden")
    results = await run_checks(cluster, target(), now=NOW)
    pending = next(r for r in results if r.name == "pending-pods")
    assert pending.status is CheckStatus.WARN
    assert "could not check" in pending.detail
    assert exit_code(results) == 0


async def test_doctor_writes_nothing_but_reviews() -> None:
    cluster = healthy_cluster()
    cluster.pods = [pod("ns", "p", "nobody")]
    await run_checks(cluster, target(), now=NOW)
    assert {path.rsplit("/", 1)[-1] for path, _ in cluster.posts} <= {
        "selfsubjectreviews",
        "selfsubjectaccessreviews",
        "subjectaccessreviews",
    }


async def test_table_and_json() -> None:
    cluster = healthy_cluster()
    cluster.pods = [pod("ns", "p", "nobody")]
    tgt = target(service_account=ServiceAccount("sched-ns", "sa"))
    results = await run_checks(cluster, tgt, now=NOW)
    text = table(results, tgt)
    assert text.splitlines()[0] == (
        "kubesched doctor: scheduler my-scheduler, Lease sched-ns/my-scheduler, "
        "service account sched-ns/sa"
    )
    assert "FAIL    pending-pods" in text
    assert "fix: nobody: run a scheduler serving it" in text
    assert text.splitlines()[-1].startswith("2 failed, ")
    document = json.loads(as_json(results, tgt))
    assert document["target"]["serviceAccount"] == "sched-ns/sa"
    assert document["summary"]["fail"] == 2
    pending = next(c for c in document["checks"] if c["name"] == "pending-pods")
    assert pending["data"]["withoutScheduler"] == {"nobody": ["ns/p"]}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ns/sa", ("ns", "sa")),
        ("system:serviceaccount:ns:sa", ("ns", "sa")),
        ("custom-scheduler-ns/custom-scheduler-sa", ("custom-scheduler-ns", "custom-scheduler-sa")),
    ],
)
def test_service_account_parsing(text: str, expected: tuple[str, str]) -> None:
    account = ServiceAccount.parse(text)
    assert (account.namespace, account.name) == expected
    assert account.username == f"system:serviceaccount:{expected[0]}:{expected[1]}"


@pytest.mark.parametrize("text", ["sa", "/sa", "ns/", "NS/sa", "a/b/c"])
def test_bad_service_accounts(text: str) -> None:
    with pytest.raises(ValueError, match="NAMESPACE/NAME"):
        ServiceAccount.parse(text)


def test_target_from_the_guides_flags() -> None:
    loaded = load_config(
        [
            "--leader-elect=true",
            "--leader-election-resource-name=my-custom-scheduler",
            "--leader-election-resource-namespace=custom-scheduler-ns",
            "--scheduler-name=my-custom-scheduler",
        ],
        environ={},
    )
    tgt = doctor_cli.target_of(loaded.config, "custom-scheduler-ns/custom-scheduler-sa")
    assert tgt.lease == "custom-scheduler-ns/my-custom-scheduler"
    assert tgt.scheduler_names == ("my-custom-scheduler",)
    assert tgt.service_account == ServiceAccount("custom-scheduler-ns", "custom-scheduler-sa")


def test_cli_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert doctor_cli.main(["--service-account=nope"]) == 2
    assert "NAMESPACE/NAME" in capsys.readouterr().err
    assert doctor_cli.main(["--no-such-flag"]) == 2
    assert "unknown flag --no-such-flag" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(1.25, "1.2s"), (42, "42s"), (190, "3m10s"), (3 * 3600 + 120, "3h2m"), (3 * 86400, "3d")],
)
def test_short_durations(seconds: float, expected: str) -> None:
    assert short(seconds) == expected


def test_ago_and_expires() -> None:
    assert ago(None) == "never"
    assert ago(5) == "5.0s ago"
    assert expires(12) == "in 12s"
    assert expires(-300) == "expired 5m0s ago"
    assert expires(None) == "-"


def test_renewal_a_moment_ahead_is_just_now_and_real_skew_is_named() -> None:
    assert ago(-0.1) == "just now"
    assert ago(0.0) == "just now"
    assert ago(1.5) == "1.5s ago"
    assert ago(-300) == "5m0s ahead of this machine's clock (clock skew)"


def test_control_characters_in_values_are_escaped_in_the_table() -> None:
    result = CheckResult(name="lease-holder", status=CheckStatus.OK, detail="held by a\nb\x1b[2J")
    text = table([result], target("s"))
    assert "\x1b" not in text
    assert "held by a\\nb\\x1b[2J" in text
