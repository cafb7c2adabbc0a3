"""Bad ElasticQuotas made visible where a platform engineer looks: a Warning Event on the
ElasticQuota itself (`kubectl describe elasticquota`, `kubectl get events`), besides the log
line of the module that finds the problem.

Reasons (neither scheduler-plugins nor Koordinator records events for these: Koordinator's
webhook refuses such quotas, scheduler-plugins accepts them silently):

* `MinExceedsMax`: the quota's `min` exceeds its `max` in some resource (`core.QuotaBook`);
* `QuotaTreeInvalid`: a problem of the quota tree read from Koordinator's labels (`tree.py`:
  a parent that does not exist or is not a parent, a loop, a name taken twice, a child's
  `min` above its parent's, an unreadable shared-weight).

Each problem is recorded once while it lasts, keyed by the quota (namespace, name, UID), the
reason and the message: an edit that keeps the same problem records nothing more, one that
changes it (another resource, another parent) records the new one, and a problem fixed and
made again is recorded again. Only the leader records (`Handle.record_object_event` answers
False elsewhere); a problem not recorded yet is recorded at the next `flush` (each PreFilter),
so a replica that becomes leader records what it found while standing by.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from kubesched.framework import EventObject, Handle
from kubesched.model import ApiObject

MIN_EXCEEDS_MAX = "MinExceedsMax"
QUOTA_TREE_INVALID = "QuotaTreeInvalid"
ACTION = "ReadElasticQuota"
"""The events' `action`: what the scheduler did with the quota when it found the problem."""
API_VERSION = "scheduling.x-k8s.io/v1alpha1"
KIND = "ElasticQuota"

_Key = tuple[str, str, str, str, str]
"""(namespace, name, uid, reason, note)."""


def _key(quota: ApiObject, reason: str, note: str) -> _Key:
    return (quota.namespace, quota.name, quota.uid, reason, note)


class QuotaProblems:
    """The problems of the ElasticQuotas now, each recorded once as a Warning Event."""

    def __init__(self, handle: Handle | None = None) -> None:
        """`handle`: where events go (None: nowhere, the problems are only tracked)."""
        self._handle = handle
        self._found: dict[_Key, ApiObject] = {}
        self._unrecorded: dict[_Key, ApiObject] = {}

    def update(
        self,
        reason: str,
        found: Iterable[tuple[ApiObject, str]],
        *,
        among: Collection[str] | None = None,
    ) -> list[tuple[ApiObject, str]]:
        """The problems of `reason` now, each (quota, note); those of `reason` no longer
        found are forgotten, for the quotas keyed (`namespace/name`) in `among` (None: all
        quotas). Returns the new ones (for the caller's log line), recorded or queued."""
        current = {_key(quota, reason, note): quota for quota, note in found}
        for key in [k for k in self._found if k[3] == reason and k not in current]:
            if among is None or _quota_key(key) in among:
                self._forget(key)
        new = [(quota, key[4]) for key, quota in current.items() if key not in self._found]
        for quota, note in new:
            key = _key(quota, reason, note)
            self._found[key] = self._unrecorded[key] = quota
        self.flush()
        return new

    def forget_quota(self, quota: ApiObject) -> None:
        """A deleted quota: its problems are gone with it."""
        for key in [k for k in self._found if k[:3] == _key(quota, "", "")[:3]]:
            self._forget(key)

    def flush(self) -> None:
        """Record the problems not recorded yet (cheap when there are none)."""
        if not self._unrecorded or self._handle is None:
            return
        for key, quota in list(self._unrecorded.items()):
            if self._record(quota, reason=key[3], note=key[4]):
                del self._unrecorded[key]

    def current(self) -> list[tuple[str, str, str]]:
        """(quota `namespace/name`, reason, note) of each problem now, sorted."""
        return sorted((_quota_key(key), key[3], key[4]) for key in self._found)

    def _record(self, quota: ApiObject, *, reason: str, note: str) -> bool:
        assert self._handle is not None
        return self._handle.record_object_event(
            EventObject.of(quota, api_version=API_VERSION, kind=KIND),
            event_type="Warning",
            reason=reason,
            action=ACTION,
            note=note,
        )

    def _forget(self, key: _Key) -> None:
        self._found.pop(key, None)
        self._unrecorded.pop(key, None)


def _quota_key(key: _Key) -> str:
    return f"{key[0]}/{key[1]}"
