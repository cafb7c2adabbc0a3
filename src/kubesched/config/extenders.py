"""`extenders:` of the config file: decoding (kubescheduler.config.k8s.io/v1 `Extender`,
strictly, as the rest of the file) and kube-scheduler's `validateExtenders`, with its texts.

    extenders:
    - urlPrefix: http://127.0.0.1:8888/scheduler
      filterVerb: filter
      prioritizeVerb: prioritize
      weight: 1
      nodeCacheCapable: true
      managedResources: [{name: example.com/gpu, ignoredByScheduler: true}]
"""

from __future__ import annotations

import base64
import binascii
import ssl
from typing import Any
from urllib.parse import urlsplit

from kubesched.apis.durations import format_duration
from kubesched.apis.extenders import (
    DEFAULT_EXTENDER_TIMEOUT,
    Extender,
    ExtenderManagedResource,
    ExtenderTLSConfig,
)
from kubesched.config.decode import Decoder, child, index
from kubesched.config.errors import Problem
from kubesched.config.qualified_name import go_quoted, qualified_name_errors

_EXTENDER = (
    "urlPrefix",
    "filterVerb",
    "preemptVerb",
    "prioritizeVerb",
    "weight",
    "bindVerb",
    "enableHTTPS",
    "tlsConfig",
    "httpTimeout",
    "nodeCacheCapable",
    "managedResources",
    "ignorable",
)
_TLS = (
    "insecure",
    "serverName",
    "certFile",
    "keyFile",
    "caFile",
    "certData",
    "keyData",
    "caData",
)
_RESOURCE = ("name", "ignoredByScheduler")
_GO_LIST = ("KubeSchedulerConfiguration.extenders", "[]v1.Extender")
_REQUESTS_PREFIX = "requests."
_BUILD = "couldn't build extenders: "
"""kube-scheduler's prefix for what fails while it builds its extenders."""


def decode_extenders(decoder: Decoder, value: object) -> tuple[Extender, ...]:
    """The extenders of the file's `extenders:` list, in order (errors go to `decoder`)."""
    items = decoder.items(value, path="extenders", go=_GO_LIST)
    return tuple(
        _extender(decoder, item, path=index("extenders", position))
        for position, item in enumerate(items)
    )


def _extender(decoder: Decoder, value: object, *, path: str) -> Extender:
    fields = decoder.fields(value, path=path, allowed=_EXTENDER)

    def text(name: str) -> str:
        return decoder.string(fields.get(name), path=child(path, name)) or ""

    def flag(name: str) -> bool:
        return bool(decoder.boolean(fields.get(name), path=child(path, name)))

    weight = decoder.integer(fields.get("weight"), path=child(path, "weight"), bits=64)
    timeout = decoder.duration(fields.get("httpTimeout"), path=child(path, "httpTimeout"))
    tls = fields.get("tlsConfig")
    return Extender(
        url_prefix=text("urlPrefix"),
        filter_verb=text("filterVerb"),
        preempt_verb=text("preemptVerb"),
        prioritize_verb=text("prioritizeVerb"),
        weight=weight or 0,
        bind_verb=text("bindVerb"),
        enable_https=flag("enableHTTPS"),
        tls_config=None if tls is None else _tls(decoder, tls, path=child(path, "tlsConfig")),
        http_timeout=timeout or DEFAULT_EXTENDER_TIMEOUT,  # as upstream's NewHTTPExtender
        node_cache_capable=flag("nodeCacheCapable"),
        managed_resources=_resources(
            decoder, fields.get("managedResources"), path=child(path, "managedResources")
        ),
        ignorable=flag("ignorable"),
    )


def _tls(decoder: Decoder, value: object, *, path: str) -> ExtenderTLSConfig:
    fields = decoder.fields(value, path=path, allowed=_TLS)

    def text(name: str) -> str:
        return decoder.string(fields.get(name), path=child(path, name)) or ""

    return ExtenderTLSConfig(
        insecure=bool(decoder.boolean(fields.get("insecure"), path=child(path, "insecure"))),
        server_name=text("serverName"),
        cert_file=text("certFile"),
        key_file=text("keyFile"),
        ca_file=text("caFile"),
        cert_data=_base64(decoder, fields, "certData", path=path),
        key_data=_base64(decoder, fields, "keyData", path=path),
        ca_data=_base64(decoder, fields, "caData", path=path),
    )


def _base64(decoder: Decoder, fields: dict[str, Any], name: str, *, path: str) -> bytes:
    """A `[]byte` field: base64 text in the file, as Go's JSON decoder reads it."""
    text = decoder.string(fields.get(name), path=child(path, name))
    if not text:
        return b""
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        decoder.error(
            child(path, name),
            "is not base64; put the PEM's base64 here (base64 -w0 file.pem), "
            f"or name the file with {name.removesuffix('Data')}File",
        )
        return b""


def _resources(
    decoder: Decoder, value: object, *, path: str
) -> tuple[ExtenderManagedResource, ...]:
    resources = []
    for position, item in enumerate(decoder.items(value, path=path)):
        item_path = index(path, position)
        fields = decoder.fields(item, path=item_path, allowed=_RESOURCE)
        name = decoder.string(fields.get("name"), path=child(item_path, "name")) or ""
        ignored = decoder.boolean(
            fields.get("ignoredByScheduler"), path=child(item_path, "ignoredByScheduler")
        )
        resources.append(ExtenderManagedResource(name=name, ignored_by_scheduler=bool(ignored)))
    return tuple(resources)


def validate_extenders(extenders: tuple[Extender, ...]) -> list[str]:
    """kube-scheduler's `validateExtenders` (its texts, in its order), then kubesched's
    check that each extender has a URL it can call."""
    errors: list[str] = []
    managed: set[str] = set()
    for position, extender in enumerate(extenders):
        path = index("extenders", position)
        if extender.prioritize_verb and extender.weight <= 0:
            errors.append(
                Problem(
                    f"{path}.weight: Invalid value: {extender.weight}: must have a positive "
                    "weight applied to it",
                    "the prioritize verb's scores are multiplied by it; e.g. weight: 1",
                )
            )
        for number, resource in enumerate(extender.managed_resources):
            name_path = f"{index(child(path, 'managedResources'), number)}.name"
            errors += _resource_name_errors(name_path, resource.name)
            if resource.name in managed:
                errors.append(
                    f"{name_path}: Invalid value: {go_quoted(resource.name)}: duplicate "
                    "extender managed resource name"
                )
            managed.add(resource.name)
    binders = sum(1 for extender in extenders if extender.bind_verb)
    if binders > 1:
        errors.append(
            Problem(
                f'extenders: Invalid value: "found {binders} extenders implementing bind": '
                "only one extender can implement bind",
                "keep bindVerb on one extender",
            )
        )
    return errors + _url_errors(extenders) + _tls_errors(extenders)


def _resource_name_errors(path: str, name: str) -> list[str]:
    """upstream `validateExtendedResourceName`: a qualified name, and an extended one."""
    found = qualified_name_errors(name)
    if found:
        return [f"{path}: Invalid value: {go_quoted(name)}: {error}" for error in found]
    if _is_extended_resource_name(name):
        return []
    return [
        Problem(
            f"{path}: Invalid value: {go_quoted(name)}: is an invalid extended resource name",
            "an extended resource has a domain prefix outside kubernetes.io, e.g. example.com/gpu",
        )
    ]


def _is_extended_resource_name(name: str) -> bool:
    """upstream `IsExtendedResourceName`: not native (no `/`, or `kubernetes.io/`), not a
    quota name, and still a qualified name with `requests.` in front."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith(_REQUESTS_PREFIX):
        return False
    return not qualified_name_errors(_REQUESTS_PREFIX + name)


def _tls_errors(extenders: tuple[Extender, ...]) -> list[str]:
    """What kube-scheduler refuses when it builds the extenders (before it serves, even for
    `--write-config-to`): a CA with `insecure`."""
    errors: list[str] = []
    for position, extender in enumerate(extenders):
        tls = extender.tls_config
        where = f"{index('extenders', position)}.tlsConfig"
        if tls is not None and tls.insecure and (tls.ca_file or tls.ca_data):
            errors.append(
                Problem(
                    f"{_BUILD}specifying a root certificates file with the insecure flag is "
                    "not allowed",
                    f"{where}: drop insecure or the CA",
                    subject=where,
                )
            )
        elif tls is not None and tls.ca_data and not _has_certificates(tls.ca_data):
            errors.append(
                Problem(
                    f"{_BUILD}unable to load root certificates: unable to parse bytes as PEM block",
                    f"{where}.caData: the base64 of a PEM CA bundle (base64 -w0 ca.crt)",
                    subject=f"{where}.caData",
                )
            )
    return errors


def _has_certificates(pem: bytes) -> bool:
    """Whether `pem` holds a PEM certificate (client-go's `AppendCertsFromPEM`)."""
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT).load_verify_locations(cadata=pem.decode("ascii"))
    except (ssl.SSLError, ValueError):
        return False
    return True


def _url_errors(extenders: tuple[Extender, ...]) -> list[str]:
    """kubesched's own check: kube-scheduler starts with a URL it cannot call and fails
    every pod later; kubesched refuses it before that."""
    errors = []
    for position, extender in enumerate(extenders):
        parts = urlsplit(extender.url_prefix)
        if parts.scheme in ("http", "https") and parts.hostname:
            continue
        got = f"got {extender.url_prefix!r}" if extender.url_prefix else "it is empty"
        errors.append(
            f"{index('extenders', position)}.urlPrefix: must be an http:// or https:// URL "
            f"({got}); e.g. urlPrefix: http://127.0.0.1:8888/scheduler"
        )
    return errors


def extender_document(extender: Extender) -> dict[str, Any]:
    """One extender as `--write-config-to` writes it: kube-scheduler's v1 encoding (fields
    left at their zero value omitted, but `urlPrefix` and `httpTimeout`, which is written
    defaulted, as kube-scheduler's)."""
    document: dict[str, Any] = {"urlPrefix": extender.url_prefix}
    verbs = (
        ("filterVerb", extender.filter_verb),
        ("preemptVerb", extender.preempt_verb),
        ("prioritizeVerb", extender.prioritize_verb),
        ("weight", extender.weight),
        ("bindVerb", extender.bind_verb),
        ("enableHTTPS", extender.enable_https),
    )
    document.update((name, value) for name, value in verbs if value)
    if extender.tls_config is not None:
        document["tlsConfig"] = _tls_document(extender.tls_config)
    document["httpTimeout"] = format_duration(extender.timeout)
    if extender.node_cache_capable:
        document["nodeCacheCapable"] = True
    if extender.managed_resources:
        document["managedResources"] = [
            {"name": r.name, **({"ignoredByScheduler": True} if r.ignored_by_scheduler else {})}
            for r in extender.managed_resources
        ]
    if extender.ignorable:
        document["ignorable"] = True
    return document


def _tls_document(tls: ExtenderTLSConfig) -> dict[str, Any]:
    values = (
        ("insecure", tls.insecure),
        ("serverName", tls.server_name),
        ("certFile", tls.cert_file),
        ("keyFile", tls.key_file),
        ("caFile", tls.ca_file),
        ("certData", base64.b64encode(tls.cert_data).decode()),
        ("keyData", base64.b64encode(tls.key_data).decode()),
        ("caData", base64.b64encode(tls.ca_data).decode()),
    )
    return {name: value for name, value in values if value}
