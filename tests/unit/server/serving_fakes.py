"""A fake API server answering TokenReview and SubjectAccessReview for the serving tests."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from kubesched.kube.errors import ApiError

ADMIN_TOKEN = "admin-token-0123456789"
VIEWER_TOKEN = "viewer-token-abcdef"
NOBODY_TOKEN = "nobody-token-zyxwv"


@dataclass
class FakeReviewer:
    """Tokens -> users; users -> the non-resource paths they may get."""

    users: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {
            ADMIN_TOKEN: {"username": "admin", "groups": ["system:masters"]},
            VIEWER_TOKEN: {
                "username": "system:serviceaccount:mon:prometheus",
                "uid": "u-1",
                "groups": ["system:serviceaccounts", "system:authenticated"],
                "extra": {"authentication.kubernetes.io/pod-name": ["prom-0"]},
            },
            NOBODY_TOKEN: {"username": "system:serviceaccount:mon:nobody", "groups": []},
        }
    )
    allowed: dict[str, set[str]] = field(
        default_factory=lambda: {
            "admin": {"/metrics", "/configz"},
            "system:serviceaccount:mon:prometheus": {"/metrics"},
        }
    )
    fail_with: ApiError | None = None
    delay: float = 0.0
    posts: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def token_reviews(self) -> int:
        return sum(1 for path, _ in self.posts if path.endswith("/tokenreviews"))

    def access_reviews(self) -> list[dict[str, Any]]:
        return [body for path, body in self.posts if path.endswith("/subjectaccessreviews")]

    async def post(
        self, path: str, body: dict[str, Any], *, timeout: float | None = None
    ) -> dict[str, Any]:
        self.posts.append((path, body))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail_with is not None:
            raise self.fail_with
        if path.endswith("/tokenreviews"):
            user = self.users.get(body["spec"]["token"])
            status = {"authenticated": True, "user": user} if user else {"authenticated": False}
            return {"status": status}
        spec = body["spec"]
        attrs = spec["nonResourceAttributes"]
        ok = attrs["verb"] == "get" and attrs["path"] in self.allowed.get(spec["user"], set())
        return {"status": {"allowed": ok}}

    async def get(self, path: str, **_: Any) -> dict[str, Any]:
        raise AssertionError("not used")

    async def put(self, path: str, body: Any, **_: Any) -> dict[str, Any]:
        raise AssertionError("not used")

    async def patch(self, path: str, body: Any, **_: Any) -> dict[str, Any]:
        raise AssertionError("not used")

    async def delete(self, path: str, **_: Any) -> dict[str, Any]:
        raise AssertionError("not used")


class ManualClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now
