"""Junk in, ConfigError out: no command line or config file makes loading raise anything
else (no traceback reaches the user)."""

import tempfile
from pathlib import Path

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.config import ConfigError, LoadResult, load_config
from kubesched.config.flagtable import CANONICAL, FLAGS, REMOVED

FIELD_NAMES = [
    "apiVersion", "kind", "parallelism", "leaderElection", "clientConnection", "profiles",
    "percentageOfNodesToScore", "podInitialBackoffSeconds", "podMaxBackoffSeconds", "extenders",
    "delayCacheUntilActive", "enableProfiling", "leaderElect", "enabled", "leaseDuration",
    "renewDeadline", "retryPeriod", "resourceLock", "resourceName", "resourceNamespace",
    "kubeconfig", "qps", "burst", "contentType", "acceptContentTypes", "schedulerName",
    "plugins", "pluginConfig", "name", "args", "weight", "score", "queueSort", "filter",
    "multiPoint", "enabled", "disabled", "urlPrefix", "filterVerb", "prioritizeVerb",
    "tlsConfig", "caData", "httpTimeout", "managedResources", "ignoredByScheduler",
]  # fmt: skip
VALUES = [
    "kubescheduler.config.k8s.io/v1", "KubeSchedulerConfiguration", "15s", "-1s", "0", "leases",
    "x", "", "1m", "kube-system", "*",
]  # fmt: skip

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.sampled_from(VALUES)
    | st.text(max_size=8)
)
keys = st.sampled_from(FIELD_NAMES) | st.text(max_size=6) | st.integers(-3, 3)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=30,
)
type_meta = st.fixed_dictionaries(
    {"apiVersion": st.just("kubescheduler.config.k8s.io/v1"),
     "kind": st.just("KubeSchedulerConfiguration")},
    optional=dict.fromkeys(FIELD_NAMES[2:13], documents),
)  # fmt: skip


def load_text(text: str | bytes, argv: list[str] | None = None) -> LoadResult | ConfigError:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.yaml"
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        try:
            return load_config(
                ["--config", str(path), *(argv or [])], environ={}, namespace_file=Path(folder)
            )
        except ConfigError as error:
            return error


def assert_clean(outcome: LoadResult | ConfigError) -> None:
    if isinstance(outcome, ConfigError):
        assert outcome.errors
        assert all(error and "\n" not in error for error in outcome.errors)


@settings(max_examples=150, deadline=None)
@given(document=documents | type_meta)
def test_junk_documents_only_raise_config_error(document: object) -> None:
    assert_clean(load_text(yaml.safe_dump(document)))


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=200) | st.binary(max_size=200))
def test_junk_text_only_raises_config_error(text: str | bytes) -> None:
    assert_clean(load_text(text))


@settings(max_examples=10, deadline=None)
@given(
    text=st.sampled_from(
        ["a: &x [*x]", "a: &x {b: *x}", "profiles: &p [*p]",
         ("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles: [{pluginConfig: [{name: a, args: &a {b: *a}}]}]"),
         "[" * 5000, "{a: " * 3000]
    )
)  # fmt: skip
def test_recursive_and_deep_yaml(text: str) -> None:
    assert_clean(load_text(text))


flag_names = st.sampled_from(
    [flag.name for flag in FLAGS if flag.name != "help"] + list(CANONICAL) + list(REMOVED)
)
flag_args = st.builds(
    lambda name, value, style: [[f"--{name}"], [f"--{name}={value}"], [f"--{name}", value]][style],
    flag_names,
    st.sampled_from(VALUES) | st.text(max_size=6),
    st.integers(0, 2),
)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(flag_args | st.lists(st.text(max_size=6), max_size=1), max_size=6))
def test_junk_command_lines_only_raise_config_error(parts: list[list[str]]) -> None:
    argv = [item for part in parts for item in part]
    assert_clean(load_argv(argv))


def load_argv(argv: list[str]) -> LoadResult | ConfigError:
    try:
        return load_config(argv, environ={}, namespace_file=Path("/nonexistent"))
    except ConfigError as error:
        return error
