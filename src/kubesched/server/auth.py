"""Delegated authentication and authorization for the secure port, as kube-scheduler's.

A request to a path outside `always_allow_paths` (kube-scheduler's
`--authorization-always-allow-paths`, default `/healthz,/readyz,/livez`) must carry
`Authorization: Bearer <token>`:

1. the API server authenticates the token (`TokenReview`, authentication.k8s.io/v1):
   no token or a token it rejects -> 401;
2. the API server authorizes the user for the non-resource path (`SubjectAccessReview`,
   authorization.k8s.io/v1, verb `get` for GET/HEAD) -> 403 when denied.

Answers, positive and negative, are cached for `ttl` seconds (kube-scheduler's defaults:
authentication 10 s, authorization allowed 10 s and denied 10 s) in bounded LRU caches,
concurrent requests with the same question share one review, and at most
`MAX_CONCURRENT_REVIEWS` reviews are in flight. The reviews go through their own API client
(`AUTH_CLIENT_QPS`/`AUTH_CLIENT_BURST`, upstream's delegated-auth client limits), so
scrapers, or a caller spraying forged tokens, neither starve scheduling of its QPS nor
flood the API server. Failures to reach the API
server are not cached (401 for authentication, 500 for authorization, as upstream).
Tokens are never logged and never kept: the cache is keyed by the token's SHA-256.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from kubesched.framework.logkv import kv
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError

log = logging.getLogger(__name__)

DEFAULT_ALWAYS_ALLOW_PATHS = ("/healthz", "/readyz", "/livez")
AUTHN_REVIEWS = "/apis/authentication.k8s.io/v1/tokenreviews"
SUBJECT_ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
CACHE_TTL_SECONDS = 10.0
CACHE_MAX_ENTRIES = 1024
REVIEW_TIMEOUT_SECONDS = 5.0
MAX_CONCURRENT_REVIEWS = 64  # cache misses in flight; the rest wait for a slot
# The delegated authentication/authorization client's limits, as kube-scheduler's
# (k8s.io/apiserver's delegating authn/authz options set QPS 200, burst 400).
AUTH_CLIENT_QPS = 200.0
AUTH_CLIENT_BURST = 400

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class User:
    """An authenticated caller, as the TokenReview described it."""

    name: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def from_certificate(cls, peer: dict[str, Any]) -> User | None:
        """The user of a verified client certificate, as the API server's x509
        authenticator names it: CommonName the user, each Organization a group."""
        fields = [item for rdn in peer.get("subject", ()) for item in rdn]
        name = next((value for key, value in fields if key == "commonName"), "")
        groups = tuple(value for key, value in fields if key == "organizationName")
        return cls(name=name, groups=groups) if name else None

    @classmethod
    def from_review(cls, user: dict[str, Any]) -> User:
        extra = user.get("extra") or {}
        return cls(
            name=str(user.get("username") or ""),
            uid=str(user.get("uid") or ""),
            groups=tuple(str(g) for g in user.get("groups") or ()),
            extra=tuple(sorted((str(k), tuple(map(str, v or ()))) for k, v in extra.items())),
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """What to answer: `status` 200 (serve), 401, 403 or 500, with a short message."""

    status: int
    message: str = ""
    user: str = ""

    @property
    def allowed(self) -> bool:
        return self.status == 200


class RequestAuthorizer(Protocol):
    """What the HTTPS server asks before serving a request."""

    def always_allowed(self, path: str) -> bool:
        """True when `path` is served to anyone, without a token."""
        ...

    async def decide(
        self, *, path: str, verb: str, authorization: str | None, client: User | None = None
    ) -> Decision:
        """Authenticate the caller (`client`, from a verified client certificate, else the
        `Authorization` header) and authorize `verb` on `path`."""
        ...


@dataclass(slots=True)
class _Entry(Generic[V]):
    value: V
    expires: float


class _TtlCache(Generic[V]):
    """A bounded LRU cache whose entries expire; concurrent misses share one computation."""

    def __init__(self, *, ttl: float, max_entries: int, clock: Callable[[], float]) -> None:
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._entries: OrderedDict[Hashable, _Entry[V]] = OrderedDict()
        self._inflight: dict[Hashable, asyncio.Future[V]] = {}

    def _get(self, key: Hashable) -> _Entry[V] | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires <= self._clock():
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry

    def _put(self, key: Hashable, value: V) -> None:
        self._entries[key] = _Entry(value, self._clock() + self._ttl)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    async def get_or_compute(self, key: Hashable, compute: Callable[[], Awaitable[V]]) -> V:
        """The cached value, else the result of `compute()` (cached unless it raised)."""
        entry = self._get(key)
        if entry is not None:
            return entry.value
        pending = self._inflight.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._inflight[key] = future
        try:
            value = await compute()
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "exception never retrieved" warning
            raise
        else:
            self._put(key, value)
            future.set_result(value)
            return value
        finally:
            del self._inflight[key]


def bearer_token(authorization: str | None) -> str:
    """The token of an `Authorization: Bearer <token>` header ("" when absent)."""
    if not authorization:
        return ""
    scheme, _, token = authorization.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def split_paths(items: Iterable[str]) -> tuple[str, ...]:
    """`--authorization-always-allow-paths` values, each possibly a comma-separated list."""
    return tuple(path.strip() for item in items for path in item.split(",") if path.strip())


def path_matcher(paths: tuple[str, ...]) -> Callable[[str], bool]:
    """Exact paths, or prefixes written with a trailing `*` (as upstream's flag)."""
    exact = {p for p in paths if not p.endswith("*")}
    prefixes = tuple(p[:-1] for p in paths if p.endswith("*"))
    return lambda path: path in exact or (bool(prefixes) and path.startswith(prefixes))


class DelegatedAuth:
    """`RequestAuthorizer` that asks the API server (TokenReview + SubjectAccessReview)."""

    def __init__(
        self,
        api: KubeApi,
        *,
        always_allow_paths: tuple[str, ...] = DEFAULT_ALWAYS_ALLOW_PATHS,
        ttl: float = CACHE_TTL_SECONDS,
        max_entries: int = CACHE_MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._api = api
        self._always = path_matcher(always_allow_paths)
        self._users: _TtlCache[User | None] = _TtlCache(
            ttl=ttl, max_entries=max_entries, clock=clock
        )
        self._verdicts: _TtlCache[bool] = _TtlCache(ttl=ttl, max_entries=max_entries, clock=clock)
        self._slots = asyncio.Semaphore(MAX_CONCURRENT_REVIEWS)

    def always_allowed(self, path: str) -> bool:
        return self._always(path)

    async def decide(
        self, *, path: str, verb: str, authorization: str | None, client: User | None = None
    ) -> Decision:
        user = client or await self._token_user(path, authorization)
        if user is None:
            return Decision(401, "Unauthorized")
        try:
            allowed = await self.authorize(user, path=path, verb=verb)
        except ApiError as exc:
            log.warning(
                "could not authorize a request (SubjectAccessReview)",
                extra=kv(user=user.name, path=path, err=exc),
            )
            return Decision(500, "Internal Server Error: authorization failed", user.name)
        if not allowed:
            message = f'forbidden: User "{user.name}" cannot {verb} path "{path}"'
            return Decision(403, message, user.name)
        return Decision(200, "", user.name)

    async def _token_user(self, path: str, authorization: str | None) -> User | None:
        token = bearer_token(authorization)
        if not token:
            return None
        try:
            return await self.authenticate(token)
        except ApiError as exc:
            log.warning(
                "could not authenticate a request (TokenReview)", extra=kv(path=path, err=exc)
            )
            return None

    async def authenticate(self, token: str) -> User | None:
        """The token's user, or None when the API server does not accept it."""
        key = hashlib.sha256(token.encode()).hexdigest()

        async def review() -> User | None:
            body = {
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenReview",
                "spec": {"token": token},
            }
            async with self._slots:
                answer = await self._api.post(AUTHN_REVIEWS, body, timeout=REVIEW_TIMEOUT_SECONDS)
            status = answer.get("status") or {}
            if not status.get("authenticated"):
                return None
            return User.from_review(status.get("user") or {})

        return await self._users.get_or_compute(key, review)

    async def authorize(self, user: User, *, path: str, verb: str) -> bool:
        """Whether `user` may `verb` the non-resource URL `path`."""

        async def review() -> bool:
            spec: dict[str, Any] = {
                "user": user.name,
                "groups": list(user.groups),
                "nonResourceAttributes": {"path": path, "verb": verb},
            }
            if user.uid:
                spec["uid"] = user.uid
            if user.extra:
                spec["extra"] = {key: list(values) for key, values in user.extra}
            body = {
                "apiVersion": "authorization.k8s.io/v1",
                "kind": "SubjectAccessReview",
                "spec": spec,
            }
            async with self._slots:
                answer = await self._api.post(
                    SUBJECT_ACCESS_REVIEWS, body, timeout=REVIEW_TIMEOUT_SECONDS
                )
            status = answer.get("status") or {}
            return bool(status.get("allowed")) and not status.get("denied")

        return await self._verdicts.get_or_compute((user, path, verb), review)
