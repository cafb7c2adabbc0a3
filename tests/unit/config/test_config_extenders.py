# Verbatim kube-scheduler messages read best one per line:
# ruff: noqa: E501
"""`extenders:` in the config file: decoding, kube-scheduler's validation texts, and
`--write-config-to` writing them back."""

import base64
from pathlib import Path

import pytest

from kubesched.apis.extenders import (
    DEFAULT_EXTENDER_TIMEOUT,
    Extender,
    ExtenderManagedResource,
    ExtenderTLSConfig,
)
from kubesched.config.dump import dump_config
from kubesched.localcluster.pki import write_pki
from tests.unit.config.conftest import Load, LoadErrors, WriteFile

FULL = """
    extenders:
    - urlPrefix: https://extender.example:8443/scheduler
      filterVerb: filter
      preemptVerb: preempt
      prioritizeVerb: prioritize
      weight: 3
      bindVerb: bind
      enableHTTPS: true
      tlsConfig: {insecure: false, serverName: extender.example, caFile: /ca.pem, caData: CA}
      httpTimeout: 2s
      nodeCacheCapable: true
      managedResources:
      - {name: example.com/gpu, ignoredByScheduler: true}
      - {name: example.com/fpga}
      ignorable: true
    - urlPrefix: http://127.0.0.1:8888
      filterVerb: filter
"""


@pytest.fixture
def ca_pem(tmp_path: Path) -> bytes:
    return write_pki(tmp_path / "pki").ca_cert.read_bytes()


def full(ca_pem: bytes) -> str:
    return FULL.replace("caData: CA", f"caData: {base64.b64encode(ca_pem).decode()}")


def test_every_field_is_read(load: Load, write_config: WriteFile, ca_pem: bytes) -> None:
    first, second = load(["--config", write_config(full(ca_pem))]).config.extenders
    assert first == Extender(
        url_prefix="https://extender.example:8443/scheduler",
        filter_verb="filter",
        preempt_verb="preempt",
        prioritize_verb="prioritize",
        weight=3,
        bind_verb="bind",
        enable_https=True,
        tls_config=ExtenderTLSConfig(
            server_name="extender.example", ca_file="/ca.pem", ca_data=ca_pem
        ),
        http_timeout=2.0,
        node_cache_capable=True,
        managed_resources=(
            ExtenderManagedResource("example.com/gpu", ignored_by_scheduler=True),
            ExtenderManagedResource("example.com/fpga"),
        ),
        ignorable=True,
    )
    assert first.ignored_resources == ("example.com/gpu",)
    assert second == Extender(
        url_prefix="http://127.0.0.1:8888", filter_verb="filter", http_timeout=5.0
    )
    assert second.timeout == DEFAULT_EXTENDER_TIMEOUT == 5.0


def test_write_config_to_round_trips(
    load: Load, write_config: WriteFile, tmp_path: Path, ca_pem: bytes
) -> None:
    config = load(["--config", write_config(full(ca_pem))]).config
    written = tmp_path / "written.yaml"
    written.write_text(dump_config(config), encoding="utf-8")
    again = load(["--config", str(written)]).config
    assert again.extenders == config.extenders
    assert f"caData: {base64.b64encode(ca_pem).decode()}" in dump_config(config)
    # kube-scheduler writes the default it filled in (5s), not the unset value
    assert "httpTimeout: 5s" in dump_config(again).split("http://127.0.0.1:8888", 1)[1]


def test_kube_schedulers_validation_texts_in_its_order(
    load_errors: LoadErrors, write_config: WriteFile
) -> None:
    """The aggregate kube-scheduler v1.37.2 prints for this file, verbatim (checked against
    its --write-config-to), then kubesched's own URL check."""
    errors = load_errors(
        [
            "--config",
            write_config("""
            extenders:
            - urlPrefix: ""
              prioritizeVerb: p
              bindVerb: b
              managedResources: [{name: cpu}, {name: "a/b/c"}, {name: example.com/x}]
            - urlPrefix: http://x
              bindVerb: b
              managedResources: [{name: example.com/x}]
        """),
        ]
    )
    expected = [
        "extenders[0].weight: Invalid value: 0: must have a positive weight applied to it",
        'extenders[0].managedResources[0].name: Invalid value: "cpu": is an invalid extended resource name',
        "extenders[0].managedResources[1].name: Invalid value: \"a/b/c\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        'extenders[1].managedResources[0].name: Invalid value: "example.com/x": duplicate extender managed resource name',
        'extenders: Invalid value: "found 2 extenders implementing bind": only one extender can implement bind',
        "extenders[0].urlPrefix: must be an http:// or https:// URL (it is empty); e.g. urlPrefix: http://127.0.0.1:8888/scheduler",
    ]
    assert len(errors) == len(expected)
    for error, text in zip(errors, expected, strict=True):
        assert error.startswith(text), (error, text)  # kubesched's hint may follow


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("example.com/gpu", True),
        ("nvidia.com/gpu", True),
        ("cpu", False),
        ("kubernetes.io/gpu", False),
        ("requests.example.com/gpu", False),
    ],
)
def test_managed_resource_names(
    load_errors: LoadErrors, write_config: WriteFile, name: str, valid: bool
) -> None:
    body = f"extenders: [{{urlPrefix: 'http://e', managedResources: [{{name: '{name}'}}]}}]"
    errors = load_errors(["--config", write_config(body)]) if not valid else ()
    if valid:
        return
    assert len(errors) == 1
    assert "is an invalid extended resource name" in errors[0]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "extenders: [{urlPrefix: 'http://e', tlsConfig: {caData: 'not base64!'}}]",
            "extenders[0].tlsConfig.caData: is not base64; put the PEM's base64 here",
        ),
        (
            "extenders: [{urlPrefix: 'http://e', httpTimeout: 5}]",
            "extenders[0].httpTimeout: must be",
        ),
        (
            "extenders: [{urlPrefix: 'http://e', filterverb: f}]",
            'unknown field "extenders[0].filterverb"',
        ),
        ("extenders: {urlPrefix: 'http://e'}", "KubeSchedulerConfiguration.extenders"),
        ("extenders: [{urlPrefix: 'ftp://e'}]", "extenders[0].urlPrefix: must be an http://"),
        (
            "extenders: [{urlPrefix: 'https://e', tlsConfig: {insecure: true, caFile: /ca}}]",
            (
                "couldn't build extenders: specifying a root certificates file with the "
                "insecure flag is not allowed (extenders[0].tlsConfig: drop insecure or the CA)"
            ),
        ),
    ],
)
def test_bad_extenders_are_one_line_each(
    load_errors: LoadErrors, write_config: WriteFile, body: str, message: str
) -> None:
    errors = load_errors(["--config", write_config(body)])
    assert len(errors) == 1, errors
    assert message in errors[0]


def test_ca_data_that_holds_no_certificate_is_refused_as_kube_scheduler_refuses_it(
    load_errors: LoadErrors, write_config: WriteFile
) -> None:
    body = "extenders: [{urlPrefix: 'https://e', tlsConfig: {caData: aGVsbG8=}}]"
    (error,) = load_errors(["--config", write_config(body)])
    assert error.startswith(
        "couldn't build extenders: unable to load root certificates: unable to parse bytes "
        "as PEM block"
    )


def test_certificate_data_is_base64_in_the_file(load: Load, write_config: WriteFile) -> None:
    pem = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    body = f"extenders: [{{urlPrefix: 'https://e', tlsConfig: {{certData: {base64.b64encode(pem).decode()}}}}}]"
    (extender,) = load(["--config", write_config(body)]).config.extenders
    assert extender.tls_config is not None
    assert extender.tls_config.cert_data == pem
