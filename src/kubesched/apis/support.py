"""The Kubernetes versions kubesched supports, stated once (README, `doctor`, start-up).

kubesched behaves as kube-scheduler v1.37.2. Its default profile reads `resource.k8s.io/v1`
(DynamicResources: ResourceClaims, ResourceSlices, DeviceClasses), which Kubernetes serves
from 1.34 on, so 1.34 is the oldest API server it supports. kube-scheduler's own skew policy
lets a scheduler run against API servers up to three minor versions newer than itself, so
v1.37 semantics are supported up to 1.40. What an API server of another version lacks is
found by discovery at start-up, not guessed from its version (`kubesched.server.apicheck`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MINIMUM_MINOR = 34
"""Kubernetes 1.34: resource.k8s.io/v1 (structured DRA, GA)."""
SCHEDULER_MINOR = 37
"""kube-scheduler v1.37: the release whose behaviour kubesched reproduces."""
NEWEST_MINOR = SCHEDULER_MINOR + 3
"""kube-scheduler's version skew policy: up to three minor versions older than kube-apiserver."""
TESTED = "v1.37.2"

SUPPORTED = (
    f"Kubernetes 1.{MINIMUM_MINOR} to 1.{NEWEST_MINOR} "
    f"(kube-scheduler {TESTED} semantics; resource.k8s.io/v1 is served from 1.{MINIMUM_MINOR})"
)
"""The one-line statement of the supported versions."""

_MINOR = re.compile(r"^(\d+)")
_GIT = re.compile(r"^v(\d+)\.(\d+)")


@dataclass(frozen=True, slots=True)
class ServerVersion:
    """An API server's `/version`: its gitVersion and major.minor (None when unreadable)."""

    git_version: str
    major: int | None
    minor: int | None

    @classmethod
    def from_json(cls, body: dict[str, Any]) -> ServerVersion:
        """Read `/version` (`minor` may carry a `+`, as on some managed clusters; without
        major and minor, from the gitVersion)."""
        git = str(body.get("gitVersion") or "unknown version")
        major, minor = _number(body.get("major")), _number(body.get("minor"))
        if (major is None or minor is None) and (match := _GIT.match(git)):
            major, minor = int(match.group(1)), int(match.group(2))
        return cls(git, major, minor)

    def support_note(self) -> str:
        """ "" when kubesched supports this version, else one line saying why not."""
        if self.major is None or self.minor is None:
            return (
                f"cannot tell the API server's version ({self.git_version}); "
                f"kubesched supports {SUPPORTED}"
            )
        if (self.major, self.minor) < (1, MINIMUM_MINOR):
            return (
                f"the API server is {self.git_version}, older than Kubernetes 1.{MINIMUM_MINOR}; "
                f"kubesched supports {SUPPORTED}"
            )
        if (self.major, self.minor) > (1, NEWEST_MINOR):
            return (
                f"the API server is {self.git_version}, more than three minor versions newer than "
                f"kube-scheduler v1.{SCHEDULER_MINOR} (its version skew policy); kubesched "
                f"supports {SUPPORTED}"
            )
        return ""


def _number(value: object) -> int | None:
    match = _MINOR.match(str(value or ""))
    return int(match.group(1)) if match else None


__all__ = [
    "MINIMUM_MINOR",
    "NEWEST_MINOR",
    "SCHEDULER_MINOR",
    "SUPPORTED",
    "TESTED",
    "ServerVersion",
]
