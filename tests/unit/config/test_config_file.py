# Tables of verbatim error messages read best one per line:
# ruff: noqa: E501
"""The --config file: strict decoding, defaults, and one-line errors with field paths."""

import pytest

from kubesched.apis.config import LeaderElection, PluginRef, PluginSet, Profile
from kubesched.config import ConfigError
from tests.unit.config.conftest import Load, LoadErrors, WriteFile

COMPLETED_DEFAULT_ELECTION = LeaderElection(
    resource_name="kubesched", resource_namespace="kube-system"
)
# The mission's config section, in a KubeSchedulerConfiguration, verbatim.
MISSION_CONFIG = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
leaderElection:
  leaderElect: true
  resourceNamespace: custom-scheduler-ns
  resourceName: my-custom-scheduler
profiles:
  - schedulerName: my-custom-scheduler
"""


def test_mission_config_file(load: Load, write_file: WriteFile) -> None:
    config = load([f"--config={write_file(MISSION_CONFIG)}"]).config
    assert config.scheduler_names == ("my-custom-scheduler",)
    assert config.leader_election == LeaderElection(
        resource_namespace="custom-scheduler-ns", resource_name="my-custom-scheduler"
    )


def test_the_first_guides_enabled_field_is_read_as_leader_elect(
    load: Load, write_config: WriteFile
) -> None:
    path = write_config("""
        leaderElection:
          enabled: false
          resourceNamespace: custom-scheduler-ns
          resourceName: my-custom-scheduler
    """)
    result = load(["--config", path])
    assert result.config.leader_election.leader_elect is False
    assert result.notices == (
        (
            f"{path}: leaderElection.enabled: read as leaderElect (kube-scheduler's name for it); "
            "rename it"
        ),
    )


def test_all_upstream_fields(load: Load, write_config: WriteFile) -> None:
    path = write_config("""
        parallelism: 8
        percentageOfNodesToScore: 30
        podInitialBackoffSeconds: 2
        podMaxBackoffSeconds: 20
        delayCacheUntilActive: true
        enableProfiling: false
        enableContentionProfiling: false
        extenders: []
        clientConnection:
          kubeconfig: /etc/kubernetes/scheduler.conf
          qps: 75.5
          burst: 150
          contentType: application/json
          acceptContentTypes: application/json
        leaderElection:
          leaderElect: true
          leaseDuration: 30s
          renewDeadline: 20s
          retryPeriod: 4s
          resourceLock: leases
          resourceName: sched
          resourceNamespace: sched-ns
        profiles:
          - schedulerName: a
            percentageOfNodesToScore: 50
            plugins:
              multiPoint:
                enabled: [{name: MyPlugin}]
              score:
                enabled:
                  - {name: NodeResourcesFit, weight: 2}
                disabled:
                  - name: "*"
              queueSort: {}
            pluginConfig:
              - name: NodeResourcesFit
                args:
                  scoringStrategy: {type: MostAllocated}
              - name: MyPlugin
          - schedulerName: b
    """)
    result = load(["--config", path])
    config = result.config
    assert result.notices == (
        "parallelism: 8 accepted; kubesched schedules on one event loop, so it has no effect",
    )
    assert (config.parallelism, config.percentage_of_nodes_to_score) == (8, 30)
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (2, 20)
    assert config.delay_cache_until_active
    assert config.client_connection.kubeconfig == "/etc/kubernetes/scheduler.conf"
    assert (config.client_connection.qps, config.client_connection.burst) == (75.5, 150)
    assert config.client_connection.accept_content_types == "application/json"
    assert config.leader_election == LeaderElection(
        lease_duration=30, renew_deadline=20, retry_period=4, resource_name="sched",
        resource_namespace="sched-ns",
    )  # fmt: skip
    assert config.profiles[1] == Profile(scheduler_name="b")
    assert config.profiles[0] == Profile(
        scheduler_name="a",
        percentage_of_nodes_to_score=50,
        plugins={
            "multiPoint": PluginSet(enabled=(PluginRef("MyPlugin"),)),
            "score": PluginSet(
                enabled=(PluginRef("NodeResourcesFit", 2),), disabled=(PluginRef("*"),)
            ),
            "queueSort": PluginSet(),
        },
        plugin_config={
            "NodeResourcesFit": {"scoringStrategy": {"type": "MostAllocated"}},
            "MyPlugin": {},
        },
    )


@pytest.mark.parametrize(
    ("body", "field", "value"),
    [
        ("", "parallelism", 16),
        ("parallelism: null", "parallelism", 16),
        ("", "percentage_of_nodes_to_score", None),
        ("percentageOfNodesToScore: 0", "percentage_of_nodes_to_score", 0),
        ("", "pod_initial_backoff_seconds", 1),
        ("", "pod_max_backoff_seconds", 10),
        ("", "delay_cache_until_active", False),
        ("profiles: []", "scheduler_names", ("kubesched",)),
        ("profiles: [{}]", "scheduler_names", ("kubesched",)),
        ("leaderElection: {leaseDuration: 0s}", "leader_election", COMPLETED_DEFAULT_ELECTION),
        ("leaderElection: null", "leader_election", COMPLETED_DEFAULT_ELECTION),
    ],
)
def test_upstream_defaults(
    load: Load,
    write_config: WriteFile,
    body: str,
    field: str,
    value: LeaderElection | tuple[str] | int | None,
) -> None:
    assert getattr(load(["--config", write_config(body)]).config, field) == value


def test_client_connection_zero_means_default(load: Load, write_config: WriteFile) -> None:
    config = load(["--config", write_config("clientConnection: {qps: 0, burst: 0}")]).config
    assert (config.client_connection.qps, config.client_connection.burst) == (50, 100)


def test_json_config_file(load: Load, write_file: WriteFile) -> None:
    path = write_file(
        '{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",'
        ' "profiles": [{"schedulerName": "json-sched"}]}'
    )
    assert load(["--config", path]).config.scheduler_names == ("json-sched",)


def test_profiling_fields_are_accepted_with_a_notice(load: Load, write_config: WriteFile) -> None:
    result = load(["--config", write_config("enableProfiling: true")])
    assert result.notices[0].endswith("enableProfiling: has no effect: kubesched serves no "
                                      "/debug/pprof endpoints")  # fmt: skip


def test_plugin_args_keep_dates_as_strings(load: Load, write_config: WriteFile) -> None:
    path = write_config("""
        profiles:
          - pluginConfig:
              - {name: P, args: {since: 2024-01-02, n: 1}}
    """)
    config = load(["--config", path]).config
    assert config.profiles[0].plugin_config == {"P": {"since": "2024-01-02", "n": 1}}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "leaderElection: {leaseDuration: 15}",
            "leaderElection.leaseDuration: must be a Go duration such as 15s, 1m30s or 500ms (a string), got number 15",
        ),
        (
            "leaderElection: {leaderElect: 'yes'}",
            "leaderElection.leaderElect: must be true or false, got string 'yes'",
        ),
        ("parallelism: '16'", "parallelism: must be a whole number, got string '16'"),
        ("parallelism: 1.5", "parallelism: must be a whole number, got number 1.5"),
        ("parallelism: true", "parallelism: must be a whole number, got boolean true"),
        ("parallelism: 4294967296", "parallelism: 4294967296 does not fit in a 32-bit integer"),
        ("podMaxBackoffSeconds: 1e3", "podMaxBackoffSeconds: must be a whole number"),
        (
            "clientConnection: {qps: fast}",
            "clientConnection.qps: must be a number, got string 'fast'",
        ),
        ("clientConnection: {qps: .inf}", "clientConnection.qps: must be a finite number"),
        ("clientConnection: []", "clientConnection: must be a mapping, got a list"),
        ("profiles: {schedulerName: x}", "profiles: must be a list, got a mapping"),
        (
            "profiles: [{schedulerName: 123}]",
            "profiles[0].schedulerName: must be a string, got number 123 (quote it in YAML)",
        ),
        (
            "profiles: [{plugins: {score: {enabled: [{weight: 1}]}}}]",
            "profiles[0].plugins.score.enabled[0].name: required",
        ),
        (
            "profiles: [{plugins: {score: {enabled: [x]}}}]",
            "profiles[0].plugins.score.enabled[0]: must be a mapping, got string 'x'",
        ),
        ("profiles: [{pluginConfig: [{args: {}}]}]", "profiles[0].pluginConfig[0].name: required"),
        (
            "profiles: [{pluginConfig: [{name: A, args: [1]}]}]",
            "profiles[0].pluginConfig[0].args: must be a mapping, got a list",
        ),
        (
            "profiles: [{pluginConfig: [{name: A, args: {1: x}}]}]",
            "args: keys must be strings, got 1",
        ),
        (
            "extenders: [{urlPrefix: 'http://x', weight: heavy}]",
            "extenders[0].weight: must be a whole number, got string 'heavy'",
        ),
        (
            "leaderElection: {leaderElect: true, enabled: false}",
            "leaderElection.enabled: contradicts leaderElect",
        ),
        ("1: x", "(top level): field names must be strings, got 1"),
    ],
)
def test_decoding_errors(
    load_errors: LoadErrors, write_config: WriteFile, body: str, message: str
) -> None:
    path = write_config(body)
    errors = load_errors(["--config", path])
    assert len(errors) == 1, errors
    assert path in errors[0]  # at the start, or in the hint after kube-scheduler's text
    assert message in errors[0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "(top level): empty; it needs apiVersion: kubescheduler.config.k8s.io/v1 and kind"),
        (
            "kind: KubeSchedulerConfiguration",
            "apiVersion: missing; kubesched reads apiVersion: kubescheduler.config.k8s.io/v1",
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration",
            'no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3" in scheme "pkg/runtime/scheme.go:111"',
        ),
        (
            "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Policy",
            'no kind "Policy" is registered for version "kubescheduler.config.k8s.io/v1" in scheme',
        ),
        ("- a list", "(top level): must be a mapping, got a list"),
    ],
)
def test_type_meta_errors(
    load_errors: LoadErrors, write_file: WriteFile, text: str, message: str
) -> None:
    errors = load_errors(["--config", write_file(text)])
    assert any(message in error for error in errors), errors


def test_all_decoding_errors_are_reported_together(
    load_errors: LoadErrors, write_config: WriteFile
) -> None:
    path = write_config("""
        parallelism: many
        leaderElection: {leaseDuration: soon, resourceNmae: x}
        profiles:
          - schedulerName: 1
            plugins: {score: {enabled: [{name: A, wieght: 1}]}}
    """)
    errors = load_errors(["--config", path, "--zzz"])
    assert len(errors) == 5, errors  # the two unknown fields make one, as kube-scheduler's


@pytest.mark.parametrize(
    ("body", "exact", "hint"),
    [
        (
            "profiles: [{plugins: {score: {enabled: [{name: A}, {name: B, wieght: 3}]}}}]",
            'strict decoding error: unknown field "profiles[0].plugins.score.enabled[1].wieght"',
            'profiles[0].plugins.score.enabled[1].wieght: did you mean "weight"?',
        ),
        (
            "paralellism: 4",
            'strict decoding error: unknown field "paralellism"',
            'paralellism: did you mean "parallelism"?',
        ),
        (
            "leaderelection: {}",
            'strict decoding error: unknown field "leaderelection"',
            'did you mean "leaderElection"? field names are case-sensitive',
        ),
        (
            "schedulerName: x",
            'strict decoding error: unknown field "schedulerName"',
            "a scheduler name belongs to a profile",
        ),
        ("profiles: [{name: x}]", 'strict decoding error: unknown field "profiles[0].name"', ""),
        (
            "paralellism: 4\nprofiles: [{plugins: {filters: {}}}]",
            (
                'strict decoding error: unknown field "paralellism", unknown field '
                '"profiles[0].plugins.filters"'
            ),
            'profiles[0].plugins.filters: did you mean "filter"?',
        ),
        (
            "profiles: [{pluginConfig: [{name: A}, {name: A}]}]",
            'profiles[0].pluginConfig[1]: Duplicate value: "A"',
            "also profiles[0].pluginConfig[0]; keep one entry per plugin",
        ),
        (
            "leaderElection: {leaseDuration: 15x}",
            'time: unknown unit "x" in duration "15x"',
            "leaderElection.leaseDuration: use a Go duration",
        ),
    ],
)
def test_decoding_errors_in_kube_schedulers_words(
    load: Load, write_config: WriteFile, body: str, exact: str, hint: str
) -> None:
    """Unknown fields (all in one error) and bad durations: kube-scheduler's text, then the
    file, the field and the fix."""
    path = write_config(body)
    with pytest.raises(ConfigError) as caught:
        load(["--config", path])
    assert caught.value.exact == (exact,)
    (given,) = caught.value.hints
    assert given.startswith(f"{path}")
    assert hint in given
