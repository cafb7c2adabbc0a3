"""The command line: kube-scheduler's flag syntax and the spellings of "Configure Multiple
Schedulers" and of the guide on leader-election conflicts."""

import pytest

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.config import help_text, parse_options
from tests.unit.config.conftest import Load, LoadErrors

# The first guide's command line and Deployment args, verbatim.
GUIDE_1_COMMAND = [
    "--leader-elect=true",
    "--leader-election-resource-name=my-custom-scheduler",
    "--leader-election-resource-namespace=custom-scheduler-ns",
]
GUIDE_1_DEPLOYMENT = [*GUIDE_1_COMMAND, "--scheduler-name=my-custom-scheduler"]
# The second guide's leader-election fields, verbatim.
GUIDE_2 = [
    "--leader-elect=true",
    "--lock-object-namespace=lock-object-namespace",
    "--lock-object-name=lock-object-name",
]


def test_first_guide_command_line(load: Load) -> None:
    result = load(GUIDE_1_COMMAND)
    election = result.config.leader_election
    assert election.leader_elect is True
    assert (election.resource_namespace, election.resource_name) == (
        "custom-scheduler-ns",
        "my-custom-scheduler",
    )
    assert result.config.scheduler_names == ("kubesched",)


def test_first_guide_deployment_args(load: Load) -> None:
    result = load(GUIDE_1_DEPLOYMENT)
    assert result.config.scheduler_names == ("my-custom-scheduler",)
    assert result.config.lease == "custom-scheduler-ns/my-custom-scheduler"
    assert result.notices == (
        (
            "flag --leader-election-resource-name is a spelling from a guide, not a kube-scheduler "
            "flag; using it as --leader-elect-resource-name"
        ),
        (
            "flag --leader-election-resource-namespace is a spelling from a guide, not a "
            "kube-scheduler flag; using it as --leader-elect-resource-namespace"
        ),
        (
            "flag --scheduler-name was removed from kube-scheduler in 1.22; kubesched uses it as "
            "the scheduler name of the single profile (profiles[].schedulerName in --config)"
        ),
    )


def test_second_guide_lock_object_flags(load: Load) -> None:
    result = load(GUIDE_2)
    assert result.config.lease == "lock-object-namespace/lock-object-name"
    assert [notice.split(";")[1].strip() for notice in result.notices] == [
        "using it as --leader-elect-resource-namespace",
        "using it as --leader-elect-resource-name",
    ]
    assert all("removed from kube-scheduler in 1.28" in notice for notice in result.notices)


@pytest.mark.parametrize(
    ("argv", "seconds"),
    [
        (["--leader-election-lease-duration=15s"], (15, 10, 2)),
        (["--leader-elect-lease-duration", "1m30s"], (90, 10, 2)),
        (["--leader-election-renew-deadline=5s", "--leader-elect-lease-duration=6s"], (6, 5, 2)),
        (["--leader-election-retry-period=500ms"], (15, 10, 0.5)),
        (["--leader-elect-retry-period=1s", "--leader-elect-retry-period=3s"], (15, 10, 3)),
    ],
)
def test_leader_election_durations(
    load: Load, argv: list[str], seconds: tuple[int, int, float]
) -> None:
    election = load(argv).config.leader_election
    assert (election.lease_duration, election.renew_deadline, election.retry_period) == seconds


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], True),
        (["--leader-elect"], True),
        (["--leader-elect=false"], False),
        (["--leader-elect=False"], False),
        (["--leader-elect=0"], False),
        (["--leader-elect=t"], True),
        (["--leader-elect", "false"], False),
        (["--leader-elect=false", "--leader-elect"], True),
    ],
)
def test_boolean_flags(load: Load, argv: list[str], expected: bool) -> None:
    assert load(argv).config.leader_election.leader_elect is expected


@pytest.mark.parametrize(
    ("argv", "field", "value"),
    [
        (["--secure-port=10260"], "secure_port", 10260),
        (["--secure-port", "0"], "secure_port", 0),
        (["--bind-address=127.0.0.1"], "bind_address", "127.0.0.1"),
        (["--bind-address=::1"], "bind_address", "::1"),
        (["-v", "4"], "verbosity", 4),
        (["-v=3"], "verbosity", 3),
        (["-v5"], "verbosity", 5),
        (["--v=2"], "verbosity", 2),
        (["--logging-format=json"], "logging_format", "json"),
        (["--plugin-module=a.b", "--plugin-module", "c"], "plugin_modules", ("a.b", "c")),
        (["--pod-initial-backoff-seconds=2"], "pod_initial_backoff_seconds", 2.0),
        (["--pod-max-backoff-seconds=60"], "pod_max_backoff_seconds", 60.0),
        (["--tls-cert-file=/c.pem"], "tls_cert_file", "/c.pem"),
    ],
)
def test_scalar_flags(load: Load, argv: list[str], field: str, value: object) -> None:
    assert getattr(load(argv).config, field) == value


@pytest.mark.parametrize(
    ("argv", "field", "value"),
    [
        (["--kubeconfig=/etc/k.conf"], "kubeconfig", "/etc/k.conf"),
        (["--master", "https://10.0.0.1:6443"], "master", "https://10.0.0.1:6443"),
        (["--kube-api-qps=100.5"], "qps", 100.5),
        (["--kube-api-burst=200"], "burst", 200),
        (["--kube-api-content-type=application/json"], "content_type", "application/json"),
    ],
)
def test_client_connection_flags(load: Load, argv: list[str], field: str, value: object) -> None:
    assert getattr(load(argv).config.client_connection, field) == value


def test_content_type_is_protobuf_by_default_as_kube_schedulers(load: Load) -> None:
    assert load([]).config.client_connection.content_type == "application/vnd.kubernetes.protobuf"
    result = load(["--kube-api-content-type=application/vnd.kubernetes.protobuf"])
    assert result.config.client_connection.content_type == "application/vnd.kubernetes.protobuf"
    assert not any("content" in notice.lower() for notice in result.notices)


def test_an_unknown_content_type_is_refused(load_errors: LoadErrors) -> None:
    (error,) = load_errors(["--kube-api-content-type=application/yaml"])
    assert error == (
        "clientConnection.contentType (--kube-api-content-type): 'application/yaml' is not "
        "supported; use one of application/vnd.kubernetes.protobuf, application/json"
    )


def test_defaults_without_flags(load: Load) -> None:
    config = load([]).config
    assert config == KubeSchedulerConfiguration(
        leader_election=config.leader_election, client_connection=config.client_connection
    )
    assert config.lease == "kube-system/kubesched"
    assert config.leader_election.leader_elect
    assert (config.client_connection.qps, config.client_connection.burst) == (50, 100)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--leader-elect-resource-nmae=x"],
            "unknown flag --leader-elect-resource-nmae (did you mean --leader-elect-resource-name?)",  # noqa: E501
        ),
        (["--lock-object-nam", "x"], "did you mean --lock-object-name?"),
        (["--schduler-name=x"], "did you mean --scheduler-name?"),
        (["--zzz"], "unknown flag --zzz; `kubesched run --help` lists the flags"),
        (["--address=0.0.0.0"], "flag --address was removed from kube-scheduler in 1.24"),
        (["--port=0"], "use --secure-port"),
        (["--feature-gates=Foo"], "'Foo' is not Name=true|false"),
        (["--feature-gates=Foo=maybe"], "'Foo=maybe': the value must be true or false"),
        (["--tls-min-version=VersionTLS10"], "'VersionTLS10' is not a TLS version"),
        (["--tls-cipher-suites=TLS_FOO"], "'TLS_FOO' is not a TLS cipher suite kubesched knows"),
        (["--version=vX"], "--version: 'vX': use --version or --version=raw"),
        (
            ["--authentication-kubeconfig=/a", "--authorization-kubeconfig=/b"],
            "give both the same file",
        ),
        (["--leader-elect", "yes"], "--leader-elect: invalid boolean 'yes'"),
        (["--leader-elect=maybe"], "use true or false, e.g. --leader-elect=false"),
        (["--leader-elect-lease-duration=15"], "missing unit in duration '15'; use a Go duration"),
        (["--leader-election-lease-duration=abc"], "--leader-election-lease-duration: invalid"),
        (["--kube-api-qps=fast"], "--kube-api-qps: invalid number 'fast'"),
        (["--kube-api-qps=nan"], "must be finite"),
        (["--kube-api-burst=1.5"], "--kube-api-burst: invalid whole number '1.5'"),
        (["--secure-port=http"], "--secure-port: invalid whole number"),
        (["--logging-format=xml"], "use --logging-format=text or --logging-format=json"),
        (["--plugin-module="], "--plugin-module: needs a module name"),
        (["schedule"], "unexpected argument 'schedule': kubesched takes only flags"),
        (["--config"], "--config: expected one argument"),
        (["--leader-elect-reso=x"], "did you mean"),
    ],
)
def test_flag_errors(load_errors: LoadErrors, argv: list[str], message: str) -> None:
    errors = load_errors(argv)
    assert len(errors) == 1
    assert message in errors[0]


def test_every_flag_error_is_reported_at_once(load_errors: LoadErrors) -> None:
    errors = load_errors(["stray", "--zzz", "--kube-api-qps=x", "--secure-port=99999", "--v=-1"])
    assert len(errors) == 5


def test_unknown_flag_value_is_not_reported_twice(load_errors: LoadErrors) -> None:
    assert len(load_errors(["--zzz", "value"])) == 1


def test_flags_are_never_abbreviated(load_errors: LoadErrors) -> None:
    assert "unknown flag --leader-elect-resource-name" not in load_errors(["--leader-e=x"])[0]
    assert load_errors(["--kubecon=x"])[0].startswith("unknown flag --kubecon")


def test_help(load: Load) -> None:
    result = load(["-h"])
    assert result.show_help
    text = help_text()
    for name in ("--leader-elect-resource-name", "--lock-object-name", "--scheduler-name", "-v"):
        assert name in text


def test_write_config_to_is_returned(load: Load) -> None:
    assert load(["--write-config-to=-"]).write_config_to == "-"
    assert load(["--write-config-to", "/tmp/out.yaml"]).write_config_to == "/tmp/out.yaml"
    assert load([]).write_config_to == ""


def test_parse_options_records_only_given_flags() -> None:
    options = parse_options(["--leader-elect=false", "--lock-object-name=x"])
    assert options.values == {"leader-elect": False, "leader-elect-resource-name": "x"}
    assert options.given("leader-elect-resource-name")
    assert not options.given("kubeconfig")
    assert options.errors == ()


def test_last_spelling_wins_between_alias_and_canonical(load: Load) -> None:
    config = load(["--lock-object-name=a", "--leader-elect-resource-name=b"]).config
    assert config.leader_election.resource_name == "b"
    config = load(["--leader-elect-resource-name=b", "--leader-election-resource-name=c"]).config
    assert config.leader_election.resource_name == "c"


def test_kube_scheduler_flags_take_effect(load: Load) -> None:
    config = load(
        [
            "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
            "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
            "--authentication-token-webhook-cache-ttl=30s",
            "--tls-min-version=VersionTLS13",
            "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256",
            "--permit-port-sharing",
            "--disabled-metrics=scheduler_pending_pods",
            "--pod-max-in-unschedulable-pods-duration=2m",
            "--vmodule=schedule_one=4",
        ]
    ).config
    assert config.authentication_kubeconfig == "/etc/kubernetes/scheduler.conf"
    assert config.authentication_cache_ttl == 30
    assert config.tls_min_version == "VersionTLS13"
    assert config.tls_cipher_suites == (
        "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256",
    )
    assert config.permit_port_sharing
    assert config.disabled_metrics == ("scheduler_pending_pods",)
    assert config.pod_max_in_unschedulable_pods_seconds == 120
    assert config.vmodule == ("schedule_one=4",)


def test_flags_for_missing_features_print_one_notice_each(load: Load) -> None:
    result = load(
        ["--profiling", "--requestheader-client-ca-file=/ca.crt", "--feature-gates=A=true,B=false"]
    )
    gate = "accepted; kubesched has no switch for it and behaves as kube-scheduler v1.37 with its"
    assert result.notices == (
        (
            "flag --requestheader-client-ca-file is accepted: front-proxy (request header) "
            "authentication is not implemented; callers authenticate with a bearer token "
            "(TokenReview) or a client certificate of --client-ca-file; it has no effect"
        ),
        "flag --profiling is accepted: kubesched has no Go profiler (/debug/pprof is not served)",
        f"--feature-gates: A {gate} default",
        f"--feature-gates: B {gate} default",
    )


def test_profiling_false_needs_no_notice(load: Load) -> None:
    assert load(["--profiling=false"]).notices == ()


@pytest.mark.parametrize(("argv", "shown"), [(["--version"], "true"), (["--version=raw"], "raw")])
def test_version(load: Load, argv: list[str], shown: str) -> None:
    assert load(argv).show_version == shown
