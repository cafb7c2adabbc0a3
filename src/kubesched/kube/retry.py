"""When the API server says "try again in N seconds": Retry-After, as client-go honours it.

client-go (`rest/with_retry.go` `checkWait`, `rest/request.go` `retryAfterSeconds`) sends a
request again when the answer is 429 (API Priority and Fairness, `--max-requests-inflight`,
a server shutting down) or any status >= 500, *and* carries a `Retry-After` header of whole
seconds: it waits that long, takes a token of its QPS limiter, and retries, at most
`maxRetries` = 10 times (the default of every `rest.Request`), then returns the last error.
Without the header, or with a value that is not an integer (an HTTP-date), it does not retry,
a 429 included. kubesched does the same, with two bounds of its own (`RetryPolicy`): the
wait is never longer than `max_delay`, and a wait that would outlast the caller's timeout is
not started (client-go's request context ends it the same way).

Every verb is retried, POST included, as client-go does for any request whose body it can
replay (kubesched's bodies are bytes). A 429 comes from a filter that runs before any handler
(flow control, max-in-flight, shutdown), so the request was not processed and sending it
again is safe: a `pods/binding` POST that met a 429 binds nothing. A 5xx with Retry-After can
also be the timeout of a request that reached storage (500 ServerTimeout, 504 Timeout carry
`details.retryAfterSeconds`); its replay then meets the first attempt's effect, as when an
answer is lost on the wire: a binding gets 409 "already assigned", a create 409
AlreadyExists, an update with a resourceVersion 409 Conflict, which the callers handle.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_RETRIES = 10
"""client-go's default `maxRetries`: up to 10 retries after the first attempt."""

MAX_DELAY_SECONDS = 10.0
"""The longest wait honoured for one Retry-After. APF's own value grows while it keeps
rejecting (doubling up to 32 s), and a proxy may send anything; a pod waiting longer than
kube-scheduler's longest pod backoff (`podMaxBackoffSeconds`, 10 s) on one answer would wait
longer than the queue makes it wait after a failure, and a watch would stay closed for that
long. The caller's timeout bounds the whole call anyway."""

_INTEGER = re.compile(r"[+-]?[0-9]+")  # what Go's strconv.Atoi accepts


def retry_after_seconds(status: int, header: str | None) -> int | None:
    """The seconds an answer asks to wait before sending again (client-go's `checkWait`):
    a 429 or >= 500 status with an integer `Retry-After`; None for any other answer."""
    if status != 429 and status < 500:
        return None
    if header is None or not _INTEGER.fullmatch(header.strip()):
        return None
    return int(header)


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How many times, and how long each time, a client waits on a Retry-After answer."""

    max_retries: int = MAX_RETRIES
    """Retries after the first attempt; 0 turns retrying off."""

    max_delay: float = MAX_DELAY_SECONDS
    """Seconds: a longer Retry-After is shortened to this."""

    def delay(self, *, status: int, retry_after: str | None, retries: int) -> float | None:
        """Seconds to wait before the next attempt, after `retries` retries already made;
        None when the answer is final (not a Retry-After answer, or no retry left)."""
        if retries >= self.max_retries:
            return None
        seconds = retry_after_seconds(status, retry_after)
        if seconds is None:
            return None
        return min(float(max(seconds, 0)), self.max_delay)
