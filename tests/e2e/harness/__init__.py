"""End-to-end test harness: an API client, polling helpers, isolation and invariants.

Fixtures (tests/e2e/conftest.py): `local_cluster`, `api`, `namespace`, `new_namespace`.
"""

from tests.e2e.harness.api import KINDS, ApiClient, ApiError, Event
from tests.e2e.harness.isolation import TEST_LABEL, clean_cluster, create_namespace
from tests.e2e.harness.oracle import (
    assert_no_node_overcommitted,
    overcommitted_nodes,
    pod_requests,
    quantity,
)
from tests.e2e.harness.waiting import (
    assert_stays,
    condition,
    is_bound,
    is_pending_unbound,
    is_unschedulable,
    node_name,
    unschedulable_message,
    wait_for,
)

__all__ = [
    "KINDS",
    "TEST_LABEL",
    "ApiClient",
    "ApiError",
    "Event",
    "assert_no_node_overcommitted",
    "assert_stays",
    "clean_cluster",
    "condition",
    "create_namespace",
    "is_bound",
    "is_pending_unbound",
    "is_unschedulable",
    "node_name",
    "overcommitted_nodes",
    "pod_requests",
    "quantity",
    "unschedulable_message",
    "wait_for",
]
