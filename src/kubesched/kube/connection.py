"""Where the API server is and how to authenticate, loaded exactly like kubectl does.

kubernetes_asyncio parses kubeconfig (KUBECONFIG merging, contexts, client certificates,
tokens, exec credential plugins) and in-cluster service-account config; we only turn its
result into an `ssl.SSLContext`, a base URL and a token source for our own aiohttp session.
Resolution order follows kube-scheduler (`clientcmd.BuildConfigFromFlags`): an explicit
`--kubeconfig` file; else in-cluster config when running in a pod; else the KUBECONFIG
environment variable or ~/.kube/config. `--master` overrides the server address. The
cluster's `proxy-url` and `tls-server-name`, and the HTTPS_PROXY/NO_PROXY environment, are
honoured as kubectl honours them (`kubesched.kube.proxy`, `kubesched.kube.dial`).

kubernetes_asyncio (with its generated API models) is imported only here, when a connection
is loaded: commands that never connect (`--version`, `--help`, `manifests`,
`--write-config-to`) stay without it (docs/development.md has the RSS).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from kubesched.apis.yamlinput import describe_error, load_all_bounded
from kubesched.errors import FatalError
from kubesched.kube.credentials import ExecCredentials
from kubesched.kube.dial import Route
from kubesched.kube.proxy import Proxy, ProxyConfigError, select_proxy

_IN_CLUSTER_TOKEN = Path("/var/run/secrets/kubernetes.io/serviceaccount/token")


class ConnectionConfigError(FatalError):
    """No usable cluster connection could be loaded; the message says what to set."""


@dataclass(slots=True)
class Connection:
    """A resolved API server endpoint with TLS settings and a way to get the current token."""

    server: str
    ssl_context: ssl.SSLContext | bool
    _configuration: Any
    _loader: Any = None
    _exec: ExecCredentials | None = None
    proxy: Proxy | None = None
    """The proxy every connection to the API server goes through (`kubesched.kube.proxy`)."""
    tls_server_name: str | None = None
    """The kubeconfig cluster's `tls-server-name`: TLS checks the server's certificate
    against it (and sends it as SNI) instead of the server URL's host."""

    def __post_init__(self) -> None:
        if self._loader is not None and ExecCredentials.applies_to(self._loader):
            self._exec = ExecCredentials(self._loader)

    def route(self) -> Route:
        """How to open a connection to the API server (decided here, once per client)."""
        base = urlsplit(self.server)
        https = base.scheme == "https"
        context = client_ssl_context(self.ssl_context)
        return Route(
            base.hostname or "",
            base.port or (443 if https else 80),
            ssl=context if https else None,
            tls_server_name=self.tls_server_name,
            proxy=self.proxy,
            proxy_ssl=context,
        )

    async def authorization(self) -> str | None:
        """The `Authorization` header value: an exec plugin's token (re-run on expiry), or
        the kubeconfig's / in-cluster token (the in-cluster file is re-read as it rotates)."""
        if self._exec is not None:
            return await self._exec.header()
        value = await self._configuration.get_api_key_with_prefix("BearerToken")
        return str(value) if value else None

    def client_certificate(self) -> tuple[str, str] | None:
        """The kubeconfig user's client certificate and key files, if it has them (for
        another server than the API server, e.g. a scheduler's secure port)."""
        cert = getattr(self._configuration, "cert_file", None)
        key = getattr(self._configuration, "key_file", None)
        return (str(cert), str(key)) if cert and key else None

    async def unauthorized(self, sent: str | None) -> bool:
        """The API server answered 401 to `sent`: refresh the credential if it can be
        (exec plugins are re-run, as client-go does). True when a retry may succeed."""
        if self._exec is None:
            return False
        return await self._exec.unauthorized(sent)


def unverified_context() -> ssl.SSLContext:
    """A TLS context that verifies neither the certificate nor the host name (the
    kubeconfig's insecure-skip-tls-verify, a scheduler port's --insecure)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


def client_ssl_context(context: ssl.SSLContext | bool) -> ssl.SSLContext:
    """The TLS context of a connection's `ssl_context`, or (False: insecure-skip-tls-verify)
    one that verifies nothing."""
    return context if isinstance(context, ssl.SSLContext) else unverified_context()


def _ssl_context(configuration: Any) -> ssl.SSLContext | bool:
    if not configuration.verify_ssl:
        return False
    context = ssl.create_default_context(cafile=configuration.ssl_ca_cert or None)
    if configuration.cert_file:
        context.load_cert_chain(configuration.cert_file, configuration.key_file)
    return context


async def _from_kubeconfig(path: str, context: str | None) -> tuple[Any, Any]:
    missing = [p for p in path.split(os.pathsep) if p and not Path(p).expanduser().is_file()]
    if missing and len(missing) == len([p for p in path.split(os.pathsep) if p]):
        raise ConnectionConfigError(
            f"kubeconfig {path} does not exist; pass --kubeconfig=PATH (or set KUBECONFIG) "
            "to an existing file"
        )
    for part in (p for p in path.split(os.pathsep) if p):
        _check_kubeconfig_file(Path(part).expanduser())
    from kubernetes_asyncio.config import ConfigException, kube_config  # noqa: PLC0415

    configuration = _configuration()
    try:
        loader = await kube_config.load_kube_config(
            config_file=path,
            context=context,
            client_configuration=configuration,
            persist_config=False,
        )
    except (ConfigException, OSError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConnectionConfigError(
            f"cannot load kubeconfig {path}: {exc}; check the file or pass --kubeconfig"
        ) from exc
    return configuration, loader


def _configuration() -> Any:
    """A new kubernetes_asyncio client Configuration (imported on first use)."""
    from kubernetes_asyncio.client import Configuration  # noqa: PLC0415

    return Configuration()


def _check_kubeconfig_file(path: Path) -> None:
    """A one-line error for a kubeconfig that is not a bounded YAML mapping (the client
    library would raise a parser traceback, or expand an alias bomb)."""
    if not path.is_file():
        return
    try:
        documents = load_all_bounded(path.read_bytes(), source=str(path))
    except OSError as exc:
        raise ConnectionConfigError(
            f"cannot read kubeconfig {path}: {exc.strerror or exc}; pass --kubeconfig=PATH"
        ) from exc
    except (yaml.YAMLError, RecursionError) as exc:
        raise ConnectionConfigError(
            f"kubeconfig {path} is not valid YAML ({describe_error(exc)}); fix the file or pass "
            "--kubeconfig=PATH to another one"
        ) from exc
    if len(documents) > 1 or (documents and not isinstance(documents[0], dict | None)):
        raise ConnectionConfigError(
            f"kubeconfig {path} is not one YAML mapping (kind: Config); fix the file or pass "
            "--kubeconfig=PATH to another one"
        )


def _from_in_cluster() -> Any:
    from kubernetes_asyncio.config import load_incluster_config  # noqa: PLC0415

    configuration = _configuration()
    load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
    return configuration


async def load_connection(
    *,
    kubeconfig: str = "",
    master: str = "",
    context: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Connection:
    """Resolve the connection from flags and environment like kube-scheduler does."""
    env = os.environ if environ is None else environ
    loader: Any = None
    if kubeconfig:
        configuration, loader = await _from_kubeconfig(kubeconfig, context)
    elif env.get("KUBERNETES_SERVICE_HOST") and _IN_CLUSTER_TOKEN.exists():
        configuration = _from_in_cluster()
    else:
        default = env.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())
        if not any(Path(p).exists() for p in default.split(os.pathsep) if p):
            if master:
                # As client-go with only --master: the system's CAs, verified (no kubeconfig
                # means nobody asked for insecure-skip-tls-verify).
                configuration = _configuration()
                configuration.verify_ssl = True
            else:
                raise ConnectionConfigError(
                    "no cluster connection: pass --kubeconfig=PATH, set KUBECONFIG, "
                    "or run inside a pod with a service account"
                )
        else:
            configuration, loader = await _from_kubeconfig(default, context)
    if master:
        configuration.host = master
    server = str(configuration.host).rstrip("/")
    _check_server_url(server, from_flag=bool(master))
    try:
        proxy = select_proxy(server, proxy_url=getattr(configuration, "proxy", None), environ=env)
    except ProxyConfigError as exc:
        raise ConnectionConfigError(str(exc)) from exc
    return Connection(
        server,
        _ssl_context(configuration),
        configuration,
        loader,
        proxy=proxy,
        tls_server_name=getattr(configuration, "tls_server_name", None) or None,
    )


def _check_server_url(server: str, *, from_flag: bool) -> None:
    """A one-line error for a server address that is not an http(s) URL with a host."""
    where = "--master" if from_flag else "the kubeconfig's cluster.server"
    try:
        parsed = urlsplit(server)
        valid = parsed.scheme in {"http", "https"} and bool(parsed.hostname)
        _ = parsed.port  # raises on a malformed port
    except ValueError:
        valid = False
    if not valid or any(char.isspace() for char in server):
        raise ConnectionConfigError(
            f"{where} {server!r} is not a valid API server URL; write it as "
            "https://HOST[:PORT] (for example https://10.0.0.1:6443)"
        )
