"""Access reviews: may a subject do a verb on a resource? (`authorization.k8s.io/v1`)

`SelfSubjectAccessReview` asks about our own credentials; `SubjectAccessReview` about a
service account (it needs `create subjectaccessreviews`). A review of `create` carries no
object name, exactly like a real create request: that is what makes RBAC's `resourceNames`
useless for `create`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubesched.doctor.target import ServiceAccount
from kubesched.kube.api import KubeApi

API_VERSION = "authorization.k8s.io/v1"
SELF_REVIEWS = f"/apis/{API_VERSION}/selfsubjectaccessreviews"
SUBJECT_REVIEWS = f"/apis/{API_VERSION}/subjectaccessreviews"


@dataclass(frozen=True, slots=True, kw_only=True)
class Need:
    """One permission the scheduler needs; `why` says what fails without it."""

    verb: str
    resource: str
    group: str = ""
    subresource: str = ""
    namespace: str = ""
    name: str = ""
    why: str
    required: bool = True

    def attributes(self) -> dict[str, str]:
        """The review's `resourceAttributes`."""
        optional = {"subresource": self.subresource, "namespace": self.namespace, "name": self.name}
        return {
            "verb": self.verb,
            "group": self.group,
            "resource": self.resource,
            **{key: value for key, value in optional.items() if value},
        }

    def label(self) -> str:
        """`create pods/binding`, `get leases.coordination.k8s.io ns/name`, ..."""
        resource = self.resource + (f"/{self.subresource}" if self.subresource else "")
        if self.group:
            resource += f".{self.group}"
        where = ""
        if self.name:
            where = f" {self.namespace}/{self.name}" if self.namespace else f" {self.name}"
        elif self.namespace:
            where = f" in {self.namespace}"
        return f"{self.verb} {resource}{where}"

    def with_name(self, name: str) -> Need:
        """The same permission asked for one object name."""
        return Need(
            verb=self.verb,
            resource=self.resource,
            group=self.group,
            subresource=self.subresource,
            namespace=self.namespace,
            name=name,
            why=self.why,
            required=self.required,
        )


def review_body(need: Need, subject: ServiceAccount | None) -> tuple[str, dict[str, Any]]:
    """(path, body) of the access review asking `need` for `subject` (None: ourselves)."""
    spec: dict[str, Any] = {"resourceAttributes": need.attributes()}
    if subject is None:
        kind, path = "SelfSubjectAccessReview", SELF_REVIEWS
    else:
        kind, path = "SubjectAccessReview", SUBJECT_REVIEWS
        spec |= {"user": subject.username, "groups": list(subject.groups)}
    return path, {"apiVersion": API_VERSION, "kind": kind, "spec": spec}


async def may(api: KubeApi, need: Need, subject: ServiceAccount | None) -> bool:
    """Whether the API server's authorizer allows `need` to `subject`."""
    path, body = review_body(need, subject)
    answer = await api.post(path, body, timeout=10.0)
    status = answer.get("status") or {}
    return bool(status.get("allowed")) and not status.get("denied")
