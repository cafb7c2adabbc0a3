"""Delegated authentication and authorization: 401, 403, 200, caching, always-allowed paths."""

from __future__ import annotations

import asyncio
from typing import Any, TypedDict, Unpack

import pytest

from kubesched.kube.errors import ConnectionFailed, Forbidden
from kubesched.server.auth import DelegatedAuth, bearer_token
from tests.unit.server.serving_fakes import (
    ADMIN_TOKEN,
    NOBODY_TOKEN,
    VIEWER_TOKEN,
    FakeReviewer,
    ManualClock,
)


class AuthOptions(TypedDict, total=False):
    always_allow_paths: tuple[str, ...]
    ttl: float
    max_entries: int


def auth(
    reviewer: FakeReviewer, clock: ManualClock | None = None, **options: Unpack[AuthOptions]
) -> DelegatedAuth:
    return DelegatedAuth(reviewer, clock=clock or ManualClock(), **options)


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/livez"])
def test_health_paths_are_always_allowed(path: str) -> None:
    assert auth(FakeReviewer()).always_allowed(path)


@pytest.mark.parametrize("path", ["/metrics", "/configz", "/healthz/extra", "/"])
def test_other_paths_are_not(path: str) -> None:
    assert not auth(FakeReviewer()).always_allowed(path)


def test_prefix_paths_with_a_star() -> None:
    checker = auth(FakeReviewer(), always_allow_paths=("/healthz", "/debug/*"))
    assert checker.always_allowed("/debug/pprof/heap")
    assert not checker.always_allowed("/debugger")


@pytest.mark.parametrize(
    ("header", "token"),
    [
        (None, ""),
        ("", ""),
        ("Bearer abc", "abc"),
        ("bearer  abc ", "abc"),
        ("Basic dXNlcjpwYXNz", ""),
        ("Bearer", ""),
    ],
)
def test_bearer_token(header: str | None, token: str) -> None:
    assert bearer_token(header) == token


async def test_no_token_is_401_without_asking_the_api_server() -> None:
    reviewer = FakeReviewer()
    decision = await auth(reviewer).decide(path="/metrics", verb="get", authorization=None)
    assert decision.status == 401
    assert reviewer.posts == []


async def test_an_unknown_token_is_401() -> None:
    decision = await auth(FakeReviewer()).decide(
        path="/metrics", verb="get", authorization="Bearer forged"
    )
    assert decision.status == 401


async def test_an_authenticated_user_without_permission_is_403() -> None:
    decision = await auth(FakeReviewer()).decide(
        path="/metrics", verb="get", authorization=f"Bearer {NOBODY_TOKEN}"
    )
    assert decision.status == 403
    assert decision.message == (
        'forbidden: User "system:serviceaccount:mon:nobody" cannot get path "/metrics"'
    )


async def test_an_authorized_user_is_served_and_the_review_carries_the_user() -> None:
    reviewer = FakeReviewer()
    decision = await auth(reviewer).decide(
        path="/metrics", verb="get", authorization=f"Bearer {VIEWER_TOKEN}"
    )
    assert decision.allowed
    assert decision.user == "system:serviceaccount:mon:prometheus"
    spec = reviewer.access_reviews()[0]["spec"]
    assert spec["nonResourceAttributes"] == {"path": "/metrics", "verb": "get"}
    assert spec["uid"] == "u-1"
    assert spec["groups"] == ["system:serviceaccounts", "system:authenticated"]
    assert spec["extra"] == {"authentication.kubernetes.io/pod-name": ["prom-0"]}


async def test_authorization_is_per_path() -> None:
    checker = auth(FakeReviewer())
    header = f"Bearer {VIEWER_TOKEN}"
    assert (await checker.decide(path="/metrics", verb="get", authorization=header)).allowed
    denied = await checker.decide(path="/configz", verb="get", authorization=header)
    assert denied.status == 403


async def test_answers_are_cached_for_the_ttl_positive_and_negative() -> None:
    reviewer, clock = FakeReviewer(), ManualClock()
    checker = auth(reviewer, clock, ttl=10.0)
    for _ in range(5):
        await checker.decide(path="/metrics", verb="get", authorization=f"Bearer {ADMIN_TOKEN}")
        await checker.decide(path="/metrics", verb="get", authorization="Bearer forged")
        await checker.decide(path="/metrics", verb="get", authorization=f"Bearer {NOBODY_TOKEN}")
    assert reviewer.token_reviews() == 3
    assert len(reviewer.access_reviews()) == 2
    clock.now += 10.5
    await checker.decide(path="/metrics", verb="get", authorization=f"Bearer {ADMIN_TOKEN}")
    assert reviewer.token_reviews() == 4
    assert len(reviewer.access_reviews()) == 3


async def test_concurrent_requests_share_one_review() -> None:
    reviewer = FakeReviewer(delay=0.01)
    checker = auth(reviewer)
    decisions = await asyncio.gather(
        *(
            checker.decide(path="/metrics", verb="get", authorization=f"Bearer {ADMIN_TOKEN}")
            for _ in range(20)
        )
    )
    assert all(d.allowed for d in decisions)
    assert reviewer.token_reviews() == 1
    assert len(reviewer.access_reviews()) == 1


async def test_the_cache_is_bounded() -> None:
    reviewer = FakeReviewer()
    checker = auth(reviewer, max_entries=4)
    for i in range(10):
        await checker.decide(path="/metrics", verb="get", authorization=f"Bearer forged-{i}")
    await checker.decide(path="/metrics", verb="get", authorization="Bearer forged-0")
    assert reviewer.token_reviews() == 11  # forged-0 was evicted


async def test_api_errors_are_not_cached() -> None:
    reviewer = FakeReviewer(fail_with=ConnectionFailed("POST tokenreviews: refused"))
    checker = auth(reviewer)
    header = f"Bearer {ADMIN_TOKEN}"
    assert (await checker.decide(path="/metrics", verb="get", authorization=header)).status == 401
    reviewer.fail_with = None
    assert (await checker.decide(path="/metrics", verb="get", authorization=header)).allowed


async def test_authorization_errors_are_500() -> None:
    reviewer = FakeReviewer()
    checker = auth(reviewer)
    header = f"Bearer {ADMIN_TOKEN}"
    await checker.authenticate(ADMIN_TOKEN)  # cached user
    reviewer.fail_with = Forbidden(403, "Forbidden", "cannot create subjectaccessreviews")
    decision = await checker.decide(path="/metrics", verb="get", authorization=header)
    assert decision.status == 500


async def test_many_distinct_tokens_are_reviewed_concurrently() -> None:
    """Forged tokens miss the cache; their reviews run side by side (not 4 at a time), so
    authorized scrapes do not queue behind them."""
    reviewer = FakeReviewer(delay=0.05)
    checker = auth(reviewer)
    in_flight = peak = 0
    original = reviewer.post

    async def counting_post(
        path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        try:
            return await original(path, body, timeout=timeout)
        finally:
            in_flight -= 1

    reviewer.post = counting_post  # type: ignore[method-assign]
    await asyncio.gather(
        *(
            checker.decide(path="/metrics", verb="get", authorization=f"Bearer forged-{i}")
            for i in range(32)
        )
    )
    assert peak == 32
