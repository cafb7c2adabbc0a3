"""The chart's values tree and the three files written from it: values.yaml, its JSON schema
(closed at every level, the same keys as values.yaml, patterns that agree with kubesched's
own parsers) and the README's table of every value."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.apis.durations import DurationError, parse_duration
from kubesched.config import fromfile
from kubesched.config.validation import is_dns_label, is_dns_subdomain
from kubesched.manifests import ManifestOptions
from kubesched.manifests.chart import chart_files, markers, schemas, spec
from kubesched.manifests.chart.values import value_tree
from kubesched.manifests.options import APP_VERSION
from kubesched.plugins import in_tree_resources

CHART = Path(__file__).parents[3] / "charts" / "kubesched"
TREE = value_tree(KubeSchedulerConfiguration(), ManifestOptions(), app_version=APP_VERSION)


@pytest.fixture(scope="module")
def files() -> dict[str, str]:
    return chart_files(
        KubeSchedulerConfiguration(), ManifestOptions(), declared=in_tree_resources()
    )


def _objects(schema: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """(path, schema) of every object schema that names its properties."""
    if not isinstance(schema, dict):
        return
    if "properties" in schema:
        yield path, schema
        for key, child in schema["properties"].items():
            yield from _objects(child, f"{path}.{key}")
    if isinstance(schema.get("items"), dict):
        yield from _objects(schema["items"], f"{path}[]")


def _keys(values: Any, schema: dict[str, Any], path: str = "") -> Iterator[str]:
    """The paths of values.yaml's mappings whose keys differ from their schema's."""
    if isinstance(values, dict) and "properties" in schema and schema.get("type") == "object":
        if set(values) - set(schema["properties"]):
            yield path
        for key, value in values.items():
            yield from _keys(value, schema["properties"][key], f"{path}.{key}")


def _entries(entries: tuple[spec.Entry, ...], indent: str = "") -> Iterator[tuple[str, Any]]:
    for entry in entries:
        yield indent, entry
        if isinstance(entry, spec.Group):
            yield from _entries(entry.children, indent + "  ")


def test_values_yaml_is_the_defaults_with_a_comment_before_every_key(
    files: dict[str, str],
) -> None:
    text = files["values.yaml"]
    assert yaml.safe_load(text) == spec.defaults(TREE)
    for indent, entry in _entries(TREE):
        assert f"{indent}# {entry.doc.splitlines()[-1]}\n{indent}{entry.key}:" in text, entry.key


def test_the_schema_closes_every_mapping_of_the_chart(files: dict[str, str]) -> None:
    schema = json.loads(files["values.schema.json"])
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    open_objects = [
        path for path, node in _objects(schema) if node.get("additionalProperties") is not False
    ]
    assert not open_objects


def test_the_schema_knows_every_key_of_values_yaml(files: dict[str, str]) -> None:
    schema = json.loads(files["values.schema.json"])
    values = yaml.safe_load(files["values.yaml"])
    assert set(values) == set(schema["properties"])
    assert not list(_keys(values, schema))
    for key, node in schema["properties"].items():
        assert node["description"], key


def test_the_readme_lists_every_value_with_its_default(files: dict[str, str]) -> None:
    readme = files["README.md"]
    rows = list(spec.value_rows(TREE))
    assert len(rows) > 40
    for path, default, meaning in rows:
        row = f"| `{path}` | `{default}` | {meaning.replace('|', chr(92) + '|')} |"
        assert row in readme, path
    assert "`image.digest`" in readme
    assert "`serviceMonitor.authorization.credentials.name`" in readme


def test_the_committed_files_are_these(files: dict[str, str]) -> None:
    for name in ("values.yaml", "values.schema.json", "README.md"):
        assert (CHART / name).read_text() == files[name], name


def test_the_defaults_keep_the_secure_contexts() -> None:
    values = spec.defaults(TREE)
    assert values["securityContext"]["readOnlyRootFilesystem"] is True
    assert values["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert values["securityContext"]["allowPrivilegeEscalation"] is False
    assert values["podSecurityContext"]["runAsNonRoot"] is True
    assert values["podSecurityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}


def test_the_config_value_has_the_fields_of_the_config_file() -> None:
    in_file = set(fromfile._TOP) - {"apiVersion", "kind", "leaderElection", "profiles"}
    assert set(schemas.CONFIG["properties"]) == in_file
    profile = schemas.PROFILES["items"]["properties"]
    assert set(profile) == set(fromfile._PROFILE)


_DURATION_TEXT = st.text(alphabet="0123456789.+-smhnu\u00b5", max_size=8)


@settings(max_examples=400, deadline=None)
@given(_DURATION_TEXT)
def test_the_duration_pattern_is_what_kubesched_parses_and_not_negative(text: str) -> None:
    try:
        seconds: float | None = parse_duration(text)
    except DurationError as error:
        assume("out of range" not in str(error))
        seconds = None
    accepted = seconds is not None and seconds >= 0 and not text.startswith("-")
    assert bool(re.fullmatch(schemas.GO_DURATION, text)) == accepted, text


@pytest.mark.parametrize("text", ["15s", "1m30s", "0.5h", "500ms", "0", "2h45m", "1.5s"])
def test_usual_durations_are_accepted(text: str) -> None:
    assert re.fullmatch(schemas.GO_DURATION, text)


@pytest.mark.parametrize("text", ["-5s", "5", "", "s", "1d", "15 s"])
def test_bad_durations_are_refused(text: str) -> None:
    assert not re.fullmatch(schemas.GO_DURATION, text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab09-.A_", max_size=12))
def test_the_name_patterns_are_kubesched_s(text: str) -> None:
    label = re.fullmatch(schemas.DNS_LABEL, text) is not None and len(text) <= 63
    subdomain = re.fullmatch(schemas.DNS_SUBDOMAIN, text) is not None
    assert label == is_dns_label(text)
    assert subdomain == is_dns_subdomain(text)


@pytest.mark.parametrize(
    ("text", "accepted"),
    [("30s", True), ("1m", True), ("1h30m", True), ("0", True), ("1.5s", False), ("-1s", False)],
)
def test_the_prometheus_duration_pattern(text: str, *, accepted: bool) -> None:
    assert bool(re.fullmatch(schemas.PROMETHEUS_DURATION, text)) is accepted


def test_items_marker_appends_a_values_list() -> None:
    text = "\n".join(["env:", "- name: A", f"- '{markers.items('.Values.extraEnv')}'"])

    assert markers.to_template(text).splitlines() == [
        "env:",
        "- name: A",
        "{{- with .Values.extraEnv }}",
        "{{- toYaml . | nindent 0 }}",
        "{{- end }}",
    ]
