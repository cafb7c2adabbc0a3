"""The `extenders:` of a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1
`Extender`): HTTP services kube-scheduler consults for a pod, besides its plugins.

Field names are the snake_case of the YAML names; the values are the file's, defaulted as
kube-scheduler v1.37 does (an unset or zero `httpTimeout` is `DEFAULT_EXTENDER_TIMEOUT`, as
upstream's `NewHTTPExtender` sets it, which its `--write-config-to` then shows).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_EXTENDER_TIMEOUT = 5.0
"""Seconds an extender call may take when `httpTimeout` is unset or 0 (upstream's
`DefaultExtenderTimeout`)."""
MAX_EXTENDER_PRIORITY = 10
"""The highest score an extender's prioritize verb gives a node (`MaxExtenderPriority`)."""
EXTENDER = "Extender"
"""The name that stands for every extender among the plugins that rejected a pod (upstream's
`framework.ExtenderName`): any cluster event requeues such a pod."""


@dataclass(frozen=True, slots=True)
class ExtenderTLSConfig:
    """`tlsConfig`: how to reach an HTTPS extender (client-go's TLSClientConfig fields)."""

    insecure: bool = False
    """Skip verifying the server's certificate."""
    server_name: str = ""
    """The name checked against the server's certificate (SNI too); empty: the URL's host."""
    cert_file: str = ""
    """Client certificate (PEM) for mutual TLS."""
    key_file: str = ""
    """The client certificate's private key (PEM)."""
    ca_file: str = ""
    """CA bundle (PEM) that signs the server's certificate."""
    cert_data: bytes = b""
    """PEM of the client certificate, in place of `cert_file` (base64 in the file)."""
    key_data: bytes = b""
    """PEM of the client key, in place of `key_file` (base64 in the file)."""
    ca_data: bytes = b""
    """PEM of the CA bundle, in place of `ca_file` (base64 in the file)."""


@dataclass(frozen=True, slots=True)
class ExtenderManagedResource:
    """An extended resource an extender manages (`managedResources[]`)."""

    name: str
    ignored_by_scheduler: bool = False
    """NodeResourcesFit does not check this resource (the extender does)."""


@dataclass(frozen=True, slots=True)
class Extender:
    """One extender: its URL, the verbs it serves (empty: not served) and how to call it."""

    url_prefix: str
    """The base URL; a verb is POSTed to `<urlPrefix>/<verb>`."""
    filter_verb: str = ""
    preempt_verb: str = ""
    prioritize_verb: str = ""
    weight: int = 0
    """Multiplies the prioritize verb's scores (positive when it has one)."""
    bind_verb: str = ""
    """The extender binds the pods it is interested in (one extender at most)."""
    enable_https: bool = False
    """HTTPS; without a CA (`tls_config`) the server's certificate is not verified."""
    tls_config: ExtenderTLSConfig | None = None
    http_timeout: float = DEFAULT_EXTENDER_TIMEOUT
    """Seconds per call (an unset or zero `httpTimeout` reads as the default)."""
    node_cache_capable: bool = False
    """The extender keeps its own node cache: it is sent node names, not whole nodes."""
    managed_resources: tuple[ExtenderManagedResource, ...] = ()
    """When non-empty, the extender is consulted only for pods requesting one of these."""
    ignorable: bool = False
    """A failing (unreachable, erroring) extender is skipped instead of failing the pod."""

    @property
    def timeout(self) -> float:
        """Seconds each call may take (`http_timeout`, or the default when 0)."""
        return self.http_timeout or DEFAULT_EXTENDER_TIMEOUT

    @property
    def ignored_resources(self) -> tuple[str, ...]:
        """The managed resources NodeResourcesFit must not check."""
        return tuple(r.name for r in self.managed_resources if r.ignored_by_scheduler)
