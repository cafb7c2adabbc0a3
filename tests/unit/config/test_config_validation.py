# Tables of verbatim error messages read best one per line:
# ruff: noqa: E501
"""Validation: every problem found at once, one line each with the field path and the fix."""

import dataclasses

import pytest

from kubesched.apis.config import KubeSchedulerConfiguration, LeaderElection
from kubesched.config import default_scheduler_conflicts, validate
from tests.unit.config.conftest import Load, LoadErrors, WriteFile


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--leader-elect-resource-lock=endpoints"],
            (
                'leaderElection.resourceLock: Invalid value: "endpoints": resourceLock value must '
                'be "leases" (kubesched only supports leases; use --leader-elect-resource-lock='
            ),
        ),
        (
            ["--leader-elect-lease-duration=10s"],
            (
                'leaderElection.leaseDuration: Invalid value: "10s": must be greater than '
                "`RenewDeadline` (leaseDuration 10s, renewDeadline 10s: --leader-elect-lease-duration"
            ),
        ),
        (
            ["--leader-elect-retry-period=9s"],
            (
                "leaderElection.renewDeadline (--leader-elect-renew-deadline): 10s must be greater "
                "than 1.2 x retryPeriod (10.8s); lower --leader-elect-retry-period"
            ),
        ),
        (["--lock-object-name=My_Lease"], "'My_Lease' is not a valid Lease name"),
        (["--lock-object-namespace=a.b"], "'a.b' is not a valid namespace name"),
        (
            ["--scheduler-name=My-Scheduler"],
            "profiles[0].schedulerName: 'My-Scheduler' is not a DNS-1123 subdomain",
        ),
        (["--kube-api-qps=0"], "clientConnection.qps (--kube-api-qps): must be greater than zero"),
        (
            ["--kube-api-burst=-1"],
            "clientConnection.burst: Invalid value: -1: must be non-negative (--kube-api-burst, default 100)",
        ),
        (
            ["--kube-api-burst=0"],
            "clientConnection.burst (--kube-api-burst): must be greater than zero",
        ),
        (
            ["--kube-api-content-type=text/plain"],
            "'text/plain' is not supported; use one of application/vnd.kubernetes.protobuf",
        ),
        (
            ["--pod-initial-backoff-seconds=0"],
            (
                "podInitialBackoffSeconds: Invalid value: 0: must be greater than 0 "
                "(--pod-initial-backoff-seconds, default 1)"
            ),
        ),
        (
            ["--pod-max-backoff-seconds=0"],
            (
                "podMaxBackoffSeconds: Invalid value: 0: must be greater than or equal to "
                "PodInitialBackoffSeconds (podInitialBackoffSeconds is 1; --pod-max-backoff-seconds, default 10)"
            ),
        ),
        (["--secure-port=70000"], "--secure-port: 70000 is not a port"),
        (["--bind-address=localhost"], "--bind-address: 'localhost' is not an IP address"),
        (["-v=-1"], "-v: must be zero or more"),
    ],
)
def test_flag_validation(load_errors: LoadErrors, argv: list[str], message: str) -> None:
    errors = load_errors(argv)
    assert len(errors) == 1, errors
    assert message in errors[0]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "parallelism: 0",
            (
                "parallelism: Invalid value: 0: should be an integer value greater than zero "
                "(default 16)"
            ),
        ),
        (
            "percentageOfNodesToScore: 101",
            "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100] (0 or unset",
        ),
        (
            "percentageOfNodesToScore: -1",
            "percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
        ),
        (
            "profiles: [{percentageOfNodesToScore: 200}]",
            "profiles[0].percentageOfNodesToScore: Invalid value: 200: not in valid range",
        ),
        (
            "podInitialBackoffSeconds: -1",
            (
                "podInitialBackoffSeconds: Invalid value: -1: must be greater than 0 "
                "(--pod-initial-backoff-seconds, default 1)"
            ),
        ),
        (
            "podInitialBackoffSeconds: 20",
            (
                "podMaxBackoffSeconds: Invalid value: 10: must be greater than or equal to "
                "PodInitialBackoffSeconds (podInitialBackoffSeconds is 20;"
            ),
        ),
        (
            "profiles: [{schedulerName: a}, {}]",
            "profiles[1].schedulerName: Required value (pods pick a profile by spec.schedulerName)",
        ),
        ("profiles: [{schedulerName: ''}]", "profiles[0].schedulerName: Required value"),
        (
            "profiles: [{schedulerName: a}, {schedulerName: a}]",
            "profiles[1].schedulerName: Duplicate value: {} ('a' is also profiles[0]'s; scheduler names must be unique)",
        ),
        (
            "profiles: [{schedulerName: a_b}]",
            "profiles[0].schedulerName: 'a_b' is not a DNS-1123 subdomain",
        ),
        (
            "leaderElection: {retryPeriod: -1s}",
            (
                'leaderElection.retryPeriod: Invalid value: "-1s": must be greater than zero '
                "(--leader-elect-retry-period)"
            ),
        ),
        ("leaderElection: {resourceLock: endpointsleases}", "kubesched only supports leases"),
        (
            "profiles: [{plugins: {filter: {enabled: [{name: EBSLimits}]}}}]",
            'profiles[0].plugins.filter.enabled[0]: Invalid value: "EBSLimits": was invalid in version "v1" (KubeSchedulerConfiguration is version "kubescheduler.config.k8s.io/v1") (delete it)',
        ),
        (
            "profiles: [{pluginConfig: [{name: GCEPDLimits}]}]",
            'profiles[0].pluginConfig[0]: Invalid value: "GCEPDLimits": was invalid in version',
        ),
        (
            "profiles: [{plugins: {queueSort: {enabled: [{name: A}, {name: B}]}}}]",
            "profiles[0].plugins.queueSort.Enabled: Invalid value: 2: only one queue sort plugin can be enabled",
        ),
        (
            """profiles:
              - schedulerName: a
                plugins: {queueSort: {enabled: [{name: Q}], disabled: [{name: "*"}]}}
              - schedulerName: b
            """,
            (
                'profiles[1].plugins.queueSort: Invalid value: {"Enabled":null,"Disabled":null}: '
                "must be the same for all profiles"
            ),
        ),
        (
            """profiles:
              - schedulerName: a
                plugins: {queueSort: {enabled: [{name: Q}]}}
                pluginConfig: [{name: Q, args: {x: 1}}]
              - schedulerName: b
                plugins: {queueSort: {enabled: [{name: Q}]}}
                pluginConfig: [{name: Q, args: {x: 2}}]
            """,
            (
                'profiles[1].pluginConfig.args: Invalid value: {"x":2}: queueSort must be the '
                "same for all profiles"
            ),
        ),
    ],
)
def test_file_validation(
    load_errors: LoadErrors, write_config: WriteFile, body: str, message: str
) -> None:
    errors = load_errors(["--config", write_config(body)])
    assert len(errors) == 1, errors
    assert message in errors[0]


def test_same_queue_sort_in_all_profiles_is_valid(load: Load, write_config: WriteFile) -> None:
    path = write_config("""
        profiles:
          - schedulerName: a
            plugins: {queueSort: {enabled: [{name: Q}]}}
            pluginConfig: [{name: Q, args: {x: 1}}]
          - schedulerName: b
            plugins: {queueSort: {enabled: [{name: Q}]}}
            pluginConfig: [{name: Q, args: {x: 1}}]
    """)
    assert load(["--config", path]).config.scheduler_names == ("a", "b")


def test_leader_election_checks_only_apply_when_electing(load: Load) -> None:
    config = load(["--leader-elect=false", "--leader-elect-lease-duration=1s"]).config
    assert config.leader_election.lease_duration == 1


def test_all_validation_errors_at_once(load_errors: LoadErrors, write_config: WriteFile) -> None:
    path = write_config("parallelism: 0\npercentageOfNodesToScore: 101\n")
    argv = ["--config", path, "--leader-elect-lease-duration=1s", "--bind-address=x"]
    assert len(load_errors(argv)) == 4


def test_validate_accepts_the_defaults_once_completed() -> None:
    completed = KubeSchedulerConfiguration(
        leader_election=LeaderElection(resource_name="kubesched", resource_namespace="kube-system")
    )
    assert validate(completed) == []
    assert validate(dataclasses.replace(completed, profiles=())) == [
        "profiles: Required value (at least one profile is required)"
    ]


def test_default_scheduler_lease_conflict(load: Load) -> None:
    config = load(
        ["--lock-object-name=kube-scheduler", "--lock-object-namespace=kube-system"]
    ).config
    assert config.uses_default_scheduler_lease
    (message,) = default_scheduler_conflicts(config)
    assert message.startswith(
        "leaderElection: the Lease kube-system/kube-scheduler belongs to the default kube-scheduler"
    )
    assert message.endswith("--leader-elect-resource-name=kubesched")


def test_default_scheduler_lease_is_fine_without_leader_election(load: Load) -> None:
    config = load(["--leader-elect=false", "--lock-object-name=kube-scheduler"]).config
    assert default_scheduler_conflicts(config) == ()


def test_replacing_the_default_scheduler_with_its_lease_is_the_safe_way(load: Load) -> None:
    argv = ["--scheduler-name=default-scheduler", "--lock-object-name=kube-scheduler"]
    config = load(argv).config
    assert config.replaces_default_scheduler
    assert default_scheduler_conflicts(config) == ()


def test_replacing_the_default_scheduler_with_another_lease_is_flagged(load: Load) -> None:
    config = load(["--scheduler-name=default-scheduler"]).config
    (message,) = default_scheduler_conflicts(config)
    assert "stop kube-scheduler first" in message


def test_no_conflicts_by_default(load: Load) -> None:
    assert default_scheduler_conflicts(load([]).config) == ()
