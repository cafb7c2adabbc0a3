"""Flags against the config file, as kube-scheduler's Options.ApplyTo does it, and the
completion of the Lease name and namespace."""

from pathlib import Path

import pytest

from kubesched.config import ConfigError
from tests.unit.config.conftest import Load, LoadErrors, WriteFile

FILE = """
    clientConnection: {kubeconfig: /from/file, qps: 10, burst: 20}
    podInitialBackoffSeconds: 3
    podMaxBackoffSeconds: 30
    leaderElection:
      leaderElect: true
      leaseDuration: 30s
      renewDeadline: 20s
      retryPeriod: 5s
      resourceName: file-lease
      resourceNamespace: file-ns
    profiles:
      - schedulerName: file-sched
"""


def test_leader_election_flags_override_the_file(load: Load, write_config: WriteFile) -> None:
    argv = [
        f"--config={write_config(FILE)}",
        "--leader-elect-lease-duration=40s",
        "--leader-election-renew-deadline=30s",
        "--lock-object-name=flag-lease",
        "--leader-elect-resource-namespace=flag-ns",
    ]
    election = load(argv).config.leader_election
    assert (election.lease_duration, election.renew_deadline, election.retry_period) == (40, 30, 5)
    assert (election.resource_namespace, election.resource_name) == ("flag-ns", "flag-lease")


def test_leader_elect_false_overrides_the_file(load: Load, write_config: WriteFile) -> None:
    argv = ["--config", write_config(FILE), "--leader-elect=false"]
    assert load(argv).config.leader_election.leader_elect is False


def test_flags_not_given_leave_the_file_alone(load: Load, write_config: WriteFile) -> None:
    election = load(["--config", write_config(FILE)]).config.leader_election
    assert (election.lease_duration, election.resource_name) == (30, "file-lease")


@pytest.mark.parametrize(
    ("flag", "field"),
    [
        ("--kubeconfig=/from/flag", "clientConnection.kubeconfig"),
        ("--kube-api-qps=99", "clientConnection.qps"),
        ("--kube-api-burst=99", "clientConnection.burst"),
        ("--kube-api-content-type=application/json", "clientConnection.contentType"),
        ("--pod-initial-backoff-seconds=9", "podInitialBackoffSeconds"),
        ("--pod-max-backoff-seconds=99", "podMaxBackoffSeconds"),
    ],
)
def test_component_config_flags_are_ignored_with_config(
    load: Load, write_config: WriteFile, flag: str, field: str
) -> None:
    path = write_config(FILE)
    result = load(["--config", path, flag])
    config = result.config
    assert config.client_connection.kubeconfig == "/from/file"
    assert (config.client_connection.qps, config.client_connection.burst) == (10, 20)
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (3, 30)
    name = flag.split("=", maxsplit=1)[0]
    assert result.notices == (
        (
            f"flag {name} is ignored because --config is given (as kube-scheduler does); "
            f"set {field} in {path} instead"
        ),
    )


def test_command_line_only_flags_apply_with_config(load: Load, write_config: WriteFile) -> None:
    argv = [
        "--config", write_config(FILE), "--master=https://x:6443", "--secure-port=1234",
        "--bind-address=127.0.0.1", "-v=4", "--logging-format=json", "--plugin-module=m",
    ]  # fmt: skip
    config = load(argv).config
    assert config.client_connection.master == "https://x:6443"
    assert (config.secure_port, config.bind_address) == (1234, "127.0.0.1")
    assert (config.verbosity, config.logging_format, config.plugin_modules) == (4, "json", ("m",))


def test_scheduler_name_renames_the_single_profile_of_a_file(
    load: Load, write_config: WriteFile
) -> None:
    config = load(["--config", write_config(FILE), "--scheduler-name=flag-sched"]).config
    assert config.scheduler_names == ("flag-sched",)
    assert config.leader_election.resource_name == "file-lease"


def test_scheduler_name_with_several_profiles_is_an_error(
    load_errors: LoadErrors, write_config: WriteFile
) -> None:
    path = write_config("profiles: [{schedulerName: a}, {schedulerName: b}]")
    assert load_errors(["--config", path, "--scheduler-name=c"]) == (
        (
            f"--scheduler-name: {path} defines 2 profiles; name each one with "
            "profiles[].schedulerName in the file and drop --scheduler-name"
        ),
    )


def test_notices_travel_with_the_error(load: Load, write_config: WriteFile) -> None:
    with pytest.raises(ConfigError) as caught:
        load(["--config", write_config("parallelism: 0"), "--lock-object-name=x"])
    assert caught.value.notices[0].startswith("flag --lock-object-name is deprecated")


@pytest.mark.parametrize(
    ("argv", "where", "lease"),
    [
        ([], ({}, None), "kube-system/kubesched"),
        (["--scheduler-name=my-scheduler"], ({}, None), "kube-system/my-scheduler"),
        ([], ({"POD_NAMESPACE": "sched-ns"}, None), "sched-ns/kubesched"),
        ([], ({}, "sa-ns\n"), "sa-ns/kubesched"),
        ([], ({"POD_NAMESPACE": "env-ns"}, "sa-ns"), "env-ns/kubesched"),
        ([], ({"POD_NAMESPACE": "  "}, "  "), "kube-system/kubesched"),
        (
            ["--lock-object-namespace=flag-ns"],
            ({"POD_NAMESPACE": "env"}, None),
            "flag-ns/kubesched",
        ),
        (["--lock-object-name=flag-lease"], ({}, "sa-ns"), "sa-ns/flag-lease"),
    ],
)
def test_lease_completion(
    load: Load,
    tmp_path: Path,
    argv: list[str],
    where: tuple[dict[str, str], str | None],
    lease: str,
) -> None:
    environ, namespace_file_text = where
    namespace_file = tmp_path / "namespace"
    if namespace_file_text is not None:
        namespace_file.write_text(namespace_file_text)
    assert load(argv, environ=environ, namespace_file=namespace_file).config.lease == lease


def test_lease_name_defaults_to_the_first_profile_of_the_file(
    load: Load, write_config: WriteFile
) -> None:
    path = write_config("profiles: [{schedulerName: first}, {schedulerName: second}]")
    assert load(["--config", path]).config.lease == "kube-system/first"
