"""What doctor examines: the scheduler names, the Lease and (optionally) a service account.

The command line builds a `Target` from the same flags and config file `kubesched run`
takes, so doctor looks at exactly the Lease and names the scheduler would use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kubesched.apis.resources import ResourceSpec

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$")


@dataclass(frozen=True, slots=True)
class ServiceAccount:
    """A ServiceAccount whose permissions doctor reviews (SubjectAccessReview)."""

    namespace: str
    name: str

    @classmethod
    def parse(cls, text: str) -> ServiceAccount:
        """`namespace/name` (also `system:serviceaccount:namespace:name`); ValueError if bad."""
        value = text.strip().removeprefix("system:serviceaccount:")
        separator = "/" if "/" in value else ":"
        namespace, _, name = value.partition(separator)
        if not _DNS_LABEL.match(namespace) or not _DNS_SUBDOMAIN.match(name):
            raise ValueError(
                f"--service-account={text!r}: expected NAMESPACE/NAME, "
                "e.g. --service-account=custom-scheduler-ns/custom-scheduler-sa"
            )
        return cls(namespace, name)

    @property
    def username(self) -> str:
        """The user name its tokens authenticate as."""
        return f"system:serviceaccount:{self.namespace}:{self.name}"

    @property
    def groups(self) -> tuple[str, ...]:
        """The groups its tokens carry (RBAC may bind any of them)."""
        return (
            "system:serviceaccounts",
            f"system:serviceaccounts:{self.namespace}",
            "system:authenticated",
        )

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """The scheduler doctor checks, as `kubesched run` with the same flags would be."""

    scheduler_names: tuple[str, ...]
    lease_namespace: str
    lease_name: str
    leader_elect: bool = True
    service_account: ServiceAccount | None = None
    preemption: bool = False
    """A profile has DefaultPreemption: it deletes pods and watches PodDisruptionBudgets."""
    resources: tuple[ResourceSpec, ...] = ()
    """What enabled plugins read (`kubesched.framework.resources`): list/watch each."""
    volumes: bool = False
    """A profile has a volume plugin: it watches the storage objects and patches PVs/PVCs."""

    @property
    def lease(self) -> str:
        """The Lease as `namespace/name`."""
        return f"{self.lease_namespace}/{self.lease_name}"

    @property
    def names(self) -> str:
        """The scheduler names, comma-separated, for messages."""
        return ",".join(self.scheduler_names) or "(none)"
