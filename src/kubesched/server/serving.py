"""HTTPS endpoints like kube-scheduler's secure port: /healthz /livez /readyz /metrics
/metrics/resources /metrics/slis /configz /flagz /statusz (`resource_metrics`, `sli_metrics`,
`zpages`), and kubesched's
/debug/waitingpods (the pods held at Permit, `waiting_endpoint`). Every answer carries
`Cache-Control: no-cache, private`, as kube-scheduler's handler chain sets it.

Every request goes through the `RequestAuthorizer` first (see `kubesched.server.auth`):
the health endpoints are open to all (kube-scheduler's `--authorization-always-allow-paths`
default); any other path, `/metrics`, `/configz` and `/debug/waitingpods` included, needs a
bearer token that the API server authenticates (401 otherwise) and authorizes for `get` on
the path (403 otherwise). Nothing about a request — least of all its Authorization header —
is logged.
"""

from __future__ import annotations

import asyncio
import errno
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from kubesched.apis.waitingpods import WAITING_PODS_PATH
from kubesched.config.tls import openssl_cipher_names
from kubesched.errors import FatalError
from kubesched.scheduler.metrics import SchedulerMetrics
from kubesched.server.auth import RequestAuthorizer, User
from kubesched.server.cert_reload import reload_forever
from kubesched.server.certs import CertError, serving_context
from kubesched.server.healthchecks import HealthChecks, answer, answer_one
from kubesched.server.resource_metrics import CONTENT_TYPE as KUBE_METRICS_TEXT
from kubesched.server.sli_metrics import RESET_ANSWER, HealthcheckSLIs
from kubesched.server.zpages import Answer, Flagz, Statusz

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


# HTTP method -> authorization verb for non-resource requests (as the API server maps them).
_VERBS = {"GET": "get", "HEAD": "get", "POST": "create", "PUT": "update", "PATCH": "patch"}


class ServingError(FatalError):
    """The secure port cannot be served; the message is one line naming the fix."""


@dataclass(frozen=True, slots=True)
class ServingOptions:
    bind_address: str = "0.0.0.0"  # noqa: S104 - kube-scheduler's default
    secure_port: int = 10259
    # None: a fresh self-signed pair in memory at every start (kube-scheduler's empty
    # --cert-dir); a directory: its kubesched.crt/.key, made when absent or expired.
    cert_dir: Path | None = None
    tls_cert_file: str = ""
    tls_private_key_file: str = ""
    tls_min_version: str = "VersionTLS12"
    tls_cipher_suites: tuple[str, ...] = ()
    """IANA names of TLS 1.2 suites (empty: Python's defaults)."""
    permit_address_sharing: bool = False
    permit_port_sharing: bool = False
    client_ca_file: str = ""
    """CA bundle of the client certificates that authenticate callers (`--client-ca-file`)."""


def _verify_clients(context: ssl.SSLContext, ca_file: str) -> None:
    """Ask for a client certificate (optional: bearer tokens still work) signed by `ca_file`."""
    try:
        context.load_verify_locations(cafile=ca_file)
    except (ssl.SSLError, OSError) as exc:
        raise ServingError(
            f"--client-ca-file={ca_file}: cannot load it ({exc}); pass a PEM CA bundle"
        ) from exc
    context.verify_mode = ssl.CERT_OPTIONAL


_TLS_VERSIONS = {"VersionTLS12": ssl.TLSVersion.TLSv1_2, "VersionTLS13": ssl.TLSVersion.TLSv1_3}


class HealthServer:
    """Serves the endpoints; `ready` and `live` are callables the app provides, `auth`
    decides who may see what."""

    def __init__(
        self,
        *,
        options: ServingOptions,
        metrics: SchedulerMetrics,
        configz: Callable[[], str],
        auth: RequestAuthorizer,
        ready: Callable[[], bool] = lambda: True,
        live: Callable[[], bool] = lambda: True,
        checks: HealthChecks | None = None,
        waiting_pods: Callable[[], str] | None = None,
        resources: Callable[[], Awaitable[str]] | None = None,
        flagz: Flagz | None = None,
        statusz: Statusz | None = None,
        slis: HealthcheckSLIs | None = None,
    ) -> None:
        """`checks` name what each health endpoint checks; without, `ready` and `live`
        are one check each. `waiting_pods` answers /debug/waitingpods, `resources`
        /metrics/resources, `flagz` and `statusz` theirs (each not served without);
        `slis` records the health checks and serves /metrics/slis (a fresh one if None)."""
        self._slis = slis or HealthcheckSLIs()
        self._resources = resources
        self._zpages = {"/flagz": flagz, "/statusz": statusz}
        self._options = options
        self._metrics = metrics
        self._checks = checks or HealthChecks.simple(ready=ready, live=live)
        self._configz = configz
        self._waiting_pods = waiting_pods
        self._auth = auth
        self._runner: web.AppRunner | None = None
        self._reloader: asyncio.Task[None] | None = None
        self.port = 0

    def _app(self) -> web.Application:
        app = web.Application(middlewares=[_no_cache, self._authorize])
        for endpoint in ("healthz", "livez", "readyz"):
            app.router.add_get(f"/{endpoint}", self._health(endpoint))
            app.router.add_get(f"/{endpoint}/{{check}}", self._health(endpoint))
        app.router.add_get("/metrics", self._metrics_handler)
        app.router.add_get("/metrics/slis", self._slis_handler)
        app.router.add_delete("/metrics/slis", self._slis_reset_handler)
        app.router.add_get("/configz", self._configz_handler)
        if self._waiting_pods is not None:
            app.router.add_get(WAITING_PODS_PATH, self._waiting_pods_handler)
        if self._resources is not None:
            app.router.add_get("/metrics/resources", self._resources_handler)
        for path, page in self._zpages.items():
            if page is not None:
                app.router.add_get(path, _zpage_handler(page))
        return app

    @web.middleware
    async def _authorize(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if self._auth.always_allowed(request.path):
            return await handler(request)
        decision = await self._auth.decide(
            path=request.path,
            verb=_VERBS.get(request.method, request.method.lower()),
            authorization=request.headers.get("Authorization"),
            client=_client_user(request),
        )
        if decision.allowed:
            return await handler(request)
        headers = {"WWW-Authenticate": 'Bearer realm="kubesched"'} if decision.status == 401 else {}
        return web.Response(status=decision.status, text=decision.message + "\n", headers=headers)

    def _health(self, endpoint: str) -> Handler:
        checks = self._checks.of(endpoint)
        slis = self._slis

        def observe(check: str, passed: bool) -> None:
            slis.observe(endpoint=endpoint, check=check, passed=passed)

        async def handler(request: web.Request) -> web.StreamResponse:
            name = request.match_info.get("check")
            if name is None:
                status, text = answer(endpoint, checks, request.query, observe)
            else:
                found = answer_one(checks, name)
                if found is None:
                    raise web.HTTPNotFound
                status, text = found
            return web.Response(text=text, status=status)

        return handler

    async def _metrics_handler(self, _: web.Request) -> web.Response:
        body = generate_latest(self._metrics.exported())
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    async def _slis_handler(self, _: web.Request) -> web.Response:
        body = self._slis.exposition()
        return web.Response(body=body, headers={"Content-Type": KUBE_METRICS_TEXT})

    async def _slis_reset_handler(self, _: web.Request) -> web.Response:
        self._slis.reset()
        return web.Response(text=RESET_ANSWER)

    async def _configz_handler(self, _: web.Request) -> web.Response:
        return web.Response(text=self._configz(), content_type="application/json")

    async def _resources_handler(self, _: web.Request) -> web.Response:
        assert self._resources is not None
        body = await self._resources()
        return web.Response(text=body, headers={"Content-Type": KUBE_METRICS_TEXT})

    async def _waiting_pods_handler(self, _: web.Request) -> web.Response:
        assert self._waiting_pods is not None
        return web.Response(text=self._waiting_pods(), content_type="application/json")

    def _ssl_context(self) -> ssl.SSLContext:
        options = self._options
        try:
            context = serving_context(
                tls_cert_file=options.tls_cert_file,
                tls_private_key_file=options.tls_private_key_file,
                cert_dir=options.cert_dir,
            )
        except CertError as exc:
            raise ServingError(str(exc)) from exc
        context.minimum_version = _TLS_VERSIONS[options.tls_min_version]
        if options.client_ca_file:
            _verify_clients(context, options.client_ca_file)
        if options.tls_cipher_suites:
            context.set_ciphers(":".join(openssl_cipher_names(options.tls_cipher_suites)))
        return context

    async def start(self) -> None:
        """Bind and serve; `secure_port=0` picks a free port (see `.port`).

        Raises ServingError (one line naming the fix) when the certificate cannot be loaded
        or the address cannot be bound."""
        context = self._ssl_context()
        self._runner = web.AppRunner(self._app(), access_log=None)
        await self._runner.setup()
        address, port = self._options.bind_address, self._options.secure_port
        site = web.TCPSite(
            self._runner,
            address,
            port,
            ssl_context=context,
            reuse_address=self._options.permit_address_sharing or None,
            reuse_port=self._options.permit_port_sharing or None,
        )
        try:
            await site.start()
        except OSError as exc:
            await self.stop()
            raise ServingError(_bind_failure(address, port, exc)) from exc
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self._options.secure_port
        cert, key = self._options.tls_cert_file, self._options.tls_private_key_file
        if cert and key:
            self._reloader = asyncio.create_task(reload_forever(context, Path(cert), Path(key)))

    async def stop(self) -> None:
        if self._reloader is not None:
            self._reloader.cancel()
            await asyncio.gather(self._reloader, return_exceptions=True)
            self._reloader = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


@web.middleware
async def _no_cache(request: web.Request, handler: Handler) -> web.StreamResponse:
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        exc.headers["Cache-Control"] = "no-cache, private"
        raise
    response.headers["Cache-Control"] = "no-cache, private"
    return response


def _zpage_handler(page: Flagz | Statusz) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        found: Answer = page.answer(request.headers.get("Accept", ""))
        headers = {"Content-Type": found.content_type}
        if found.warning:
            headers["Warning"] = found.warning
        body = found.body.encode()  # bytes: aiohttp would rewrite the content type of text
        return web.Response(status=found.status, body=body, headers=headers)

    return handler


def _client_user(request: web.Request) -> User | None:
    """The caller of a client certificate TLS verified against `--client-ca-file`."""
    transport = request.transport
    peer = transport.get_extra_info("peercert") if transport is not None else None
    return User.from_certificate(peer) if peer else None


def _bind_failure(address: str, port: int, exc: OSError) -> str:
    """The one-line reason a listen failed, naming the flag to change."""
    reason = exc.strerror or str(exc)
    if exc.errno == errno.EADDRINUSE:
        return (
            f"--secure-port={port}: {address}:{port} is already in use (another kubesched or "
            "kube-scheduler on this host?); pass a free --secure-port, or stop the other process"
        )
    if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or "assign" in reason:
        return (
            f"--bind-address={address}: cannot listen there ({reason}); pass an address of "
            "this host, or 0.0.0.0 for all of them"
        )
    return f"cannot listen on {address}:{port} ({reason}); check --bind-address and --secure-port"
