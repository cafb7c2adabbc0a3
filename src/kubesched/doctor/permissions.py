"""Check: the scheduler's identity may do everything the scheduler does.

Reviewed with SelfSubjectAccessReview (our own credentials) or, with `--service-account`,
SubjectAccessReview for `system:serviceaccount:<ns>:<name>`. When `create leases` is
denied but `get`/`update` on the Lease by name are allowed, the cause is almost always the
leader-election conflict guide's rule — `leases` get/create/update with `resourceNames:
[my-custom-scheduler]` — and the check says so: RBAC `resourceNames` cannot restrict
`create` (a create request has no name yet), so that rule can never create the Lease.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from kubesched.apis.resources import built_in
from kubesched.doctor.access import Need, may
from kubesched.doctor.apiserver import whoami
from kubesched.doctor.context import Context
from kubesched.doctor.result import CheckResult, fail, ok, warn
from kubesched.doctor.target import ServiceAccount, Target
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import Forbidden, NotFound
from kubesched.model.storage_kinds import STORAGE_OBJECTS

NAME = "permissions"
LEASES = "coordination.k8s.io"
_GENERATE = "`kubesched manifests` generates least-privilege RBAC that works on the first try"


def _lease_needs(target: Target) -> list[Need]:
    ns, name = target.lease_namespace, target.lease_name

    def lease(verb: str, why: str, *, named: bool = True) -> Need:
        return Need(
            verb=verb,
            resource="leases",
            group=LEASES,
            namespace=ns,
            name=name if named else "",
            why=why,
        )

    return [
        lease("get", "leader election"),
        lease("update", "renewing the Lease"),
        lease("create", "creating the Lease the first time", named=False),
    ]


def _serving_needs() -> list[Need]:
    return [
        Need(verb="create", resource="events", why="core/v1 events", required=False),
        Need(verb="patch", resource="events", why="core/v1 events", required=False),
        Need(
            verb="create",
            resource="tokenreviews",
            group="authentication.k8s.io",
            why="authenticating /metrics callers",
            required=False,
        ),
        Need(
            verb="create",
            resource="subjectaccessreviews",
            group="authorization.k8s.io",
            why="authorizing /metrics callers",
            required=False,
        ),
    ]


def scheduler_needs(target: Target) -> list[Need]:
    """Every permission `kubesched run` with this target uses (optional ones last)."""
    needs = [
        Need(verb="list", resource="pods", why="the pod informer"),
        Need(verb="watch", resource="pods", why="the pod informer"),
        Need(verb="list", resource="nodes", why="the node informer"),
        Need(verb="watch", resource="nodes", why="the node informer"),
        Need(verb="list", resource="namespaces", why="the namespace informer"),
        Need(verb="watch", resource="namespaces", why="the namespace informer"),
        *_workload_needs(),
        Need(verb="create", resource="pods", subresource="binding", why="binding pods"),
        Need(verb="patch", resource="pods", subresource="status", why="PodScheduled=False"),
        Need(verb="create", resource="events", group="events.k8s.io", why="scheduling events"),
        Need(verb="patch", resource="events", group="events.k8s.io", why="event series"),
    ]
    if target.leader_elect:
        needs += _lease_needs(target)
    if target.preemption:
        needs += _preemption_needs()
    if target.volumes:
        needs += _volume_needs()
    return needs + _declared_needs(target) + _serving_needs()


def _declared_needs(target: Target) -> list[Need]:
    """What enabled plugins declared they read (their informers; the built-in resources are
    checked above, as RBAC grants them) and write (status)."""
    needs = []
    for spec in target.resources:
        why = f"the {spec.resource} informer (a plugin reads {spec.event_resource})"
        if not built_in(spec):
            needs += [
                Need(verb=verb, resource=spec.resource, group=spec.group, why=why)
                for verb in ("list", "watch")
            ]
        if spec.writes:
            needs += [
                Need(
                    verb=verb,
                    resource=spec.resource,
                    group=spec.group,
                    subresource=sub,
                    why=f"writing {spec.resource} (allocations and reservations)",
                )
                for sub, verbs in (
                    ("", ("create", "delete", "update", "patch")),
                    ("status", ("update", "patch")),
                )
                for verb in verbs
            ]
        elif spec.writes_status:
            needs.append(
                Need(
                    verb="patch",
                    resource=spec.resource,
                    group=spec.group,
                    subresource="status",
                    why=f"keeping {spec.resource} status current",
                )
            )
    return needs


def _workload_needs() -> list[Need]:
    """The informers of the Services and controllers default topology spreading reads."""
    kinds = (
        ("", "services"),
        ("", "replicationcontrollers"),
        ("apps", "replicasets"),
        ("apps", "statefulsets"),
    )
    why = "default topology spreading (the {} informer)"
    return [
        Need(verb=verb, resource=resource, group=group, why=why.format(resource))
        for group, resource in kinds
        for verb in ("list", "watch")
    ]


def _preemption_needs() -> list[Need]:
    """DefaultPreemption: its informer lists and watches PDBs (the caches must sync before
    scheduling starts) and it deletes victims."""
    pdbs = "poddisruptionbudgets"
    return [
        Need(verb="list", resource=pdbs, group="policy", why="the PodDisruptionBudget informer"),
        Need(verb="watch", resource=pdbs, group="policy", why="the PodDisruptionBudget informer"),
        Need(verb="delete", resource="pods", why="preemption evicting lower-priority victims"),
    ]


def _volume_needs() -> list[Need]:
    """The volume plugins: informers on the storage objects (the caches must sync before
    scheduling starts) and VolumeBinding's PreBind patches (a PV's claimRef, a claim's
    selected node)."""
    why = "the volume plugins' informers"
    needs = [
        Need(verb=verb, resource=resource, why=why)
        for resource in ("persistentvolumeclaims", "persistentvolumes")
        for verb in ("list", "watch")
    ]
    needs += [
        Need(verb="patch", resource=resource, why="VolumeBinding binding volumes")
        for resource in ("persistentvolumeclaims", "persistentvolumes")
    ]
    needs += [
        Need(verb=verb, resource=resource, group="storage.k8s.io", why=why)
        for resource in STORAGE_OBJECTS
        for verb in ("list", "watch")
    ]
    return needs


@dataclass(frozen=True, slots=True)
class LeaseCreateProblem:
    """`create leases` is denied although the Lease may be read and renewed by name."""

    pitfall: bool
    """create is granted with resourceNames only: the leader-election conflict guide's rule."""
    lease_exists: bool

    def detail(self, target: Target, who: str) -> str:
        lease = target.lease
        if self.pitfall:
            why = (
                f"its rule grants create on leases only with resourceNames: "
                f"[{target.lease_name}], and RBAC resourceNames cannot restrict create (a create "
                "request has no object name yet), so the leader-election conflict guide's rule "
                "never lets the scheduler create its Lease the first time"
            )
        else:
            why = f"it may get/update {lease} by name but has no create permission on leases"
        now = (
            "; the Lease exists now, so it works until the Lease is deleted"
            if self.lease_exists
            else ""
        )
        return f"{who} cannot create the Lease {lease}: {why}{now}"

    @staticmethod
    def fix(target: Target) -> str:
        return (
            "add a separate rule without resourceNames: apiGroups [coordination.k8s.io], "
            f"resources [leases], verbs [create] (in a Role in {target.lease_namespace}); keep "
            f"get/update restricted to resourceNames [{target.lease_name}]"
        )


async def _service_account_missing(api: KubeApi, subject: ServiceAccount | None) -> bool:
    if subject is None:
        return False
    path = f"/api/v1/namespaces/{subject.namespace}/serviceaccounts/{subject.name}"
    try:
        await api.get(path, timeout=10.0)
    except NotFound:
        return True
    except Forbidden:
        return False
    return False


async def _lease_create_problem(
    ctx: Context, needs: list[Need], denied: list[Need]
) -> LeaseCreateProblem | None:
    by_verb = {n.verb: n for n in needs if n.resource == "leases"}
    create = by_verb.get("create")
    if create is None or create not in denied:
        return None
    if by_verb["get"] in denied or by_verb["update"] in denied:
        return None
    subject = ctx.target.service_account
    pitfall = await may(ctx.api, create.with_name(ctx.target.lease_name), subject)
    return LeaseCreateProblem(pitfall=pitfall, lease_exists=await ctx.own_lease() is not None)


def _listing(needs: list[Need]) -> str:
    return ", ".join(f"{n.label()} ({n.why})" for n in needs)


def _data(who: str, needs: list[Need], denied: list[Need], **extra: Any) -> dict[str, Any]:
    return {
        "subject": who,
        "allowed": [n.label() for n in needs if n not in denied],
        "denied": [{"permission": n.label(), "why": n.why, "required": n.required} for n in denied],
        **extra,
    }


async def check_permissions(ctx: Context) -> CheckResult:
    """fail when a required permission is denied, naming the resourceNames/create pitfall."""
    target, subject = ctx.target, ctx.target.service_account
    who = subject.username if subject else (await whoami(ctx.api) or "your credentials")
    needs = scheduler_needs(target)
    try:
        answers = await asyncio.gather(*(may(ctx.api, need, subject) for need in needs))
    except Forbidden as exc:
        return warn(
            NAME,
            f"cannot review the permissions of {who}: {exc.message or exc}",
            "run doctor with credentials that may create subjectaccessreviews (a cluster "
            "admin), or without --service-account to review your own",
            subject=who,
        )
    denied = [need for need, allowed in zip(needs, answers, strict=True) if not allowed]
    lease_problem = await _lease_create_problem(ctx, needs, denied)
    missing_sa = await _service_account_missing(ctx.api, subject)
    data = _data(
        who,
        needs,
        denied,
        pitfall=bool(lease_problem and lease_problem.pitfall),
        serviceAccountMissing=missing_sa,
    )
    others = [n for n in denied if n.required and not (lease_problem and n.resource == "leases")]
    optional = [n for n in denied if not n.required]
    if lease_problem is not None:
        detail = lease_problem.detail(target, who)
        if others:
            detail += f"; also denied: {_listing(others)}"
        fix = lease_problem.fix(target) + (
            f"; also grant {', '.join(n.label() for n in others)}" if others else ""
        )
        verdict = warn if lease_problem.lease_exists and not others else fail
        return verdict(NAME, detail, f"{fix}; {_GENERATE}", **data)
    if others:
        return fail(
            NAME,
            f"{who} is denied: {_listing(others)}",
            f"grant these in the scheduler's ClusterRole/Role; {_GENERATE}",
            **data,
        )
    if missing_sa:
        return warn(
            NAME,
            f"the ServiceAccount {subject} does not exist (its RBAC would be enough)",
            f"create it: kubectl -n {subject.namespace if subject else ''} create "
            f"serviceaccount {subject.name if subject else ''}",
            **data,
        )
    if optional:
        return warn(
            NAME,
            f"{who} may do everything scheduling needs, but is denied: {_listing(optional)}",
            "grant them so /metrics can authenticate and authorize its scrapers (TokenReview, "
            f"SubjectAccessReview); {_GENERATE}",
            **data,
        )
    return ok(NAME, f"{who} has all {len(needs)} permissions kubesched uses", **data)
