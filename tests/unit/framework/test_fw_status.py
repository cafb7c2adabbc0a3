from __future__ import annotations

import pytest

from kubesched.framework import SUCCESS, Code, Status
from kubesched.framework.status import is_success


@pytest.mark.parametrize(
    ("code", "text", "rejected"),
    [
        (Code.SUCCESS, "Success", False),
        (Code.ERROR, "Error", False),
        (Code.UNSCHEDULABLE, "Unschedulable", True),
        (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "UnschedulableAndUnresolvable", True),
        (Code.WAIT, "Wait", False),
        (Code.SKIP, "Skip", False),
        (Code.PENDING, "Pending", True),
    ],
)
def test_codes_print_and_classify_like_upstream(code: Code, text: str, rejected: bool) -> None:
    status = Status(code, "why")
    assert str(code) == text
    assert status.is_rejected() is rejected
    assert status.is_success() is (code is Code.SUCCESS)


def test_message_joins_reasons_and_plugin_is_recorded() -> None:
    status = Status(Code.UNSCHEDULABLE, "Insufficient cpu", "Insufficient memory")
    assert status.message == "Insufficient cpu, Insufficient memory"
    assert status.with_plugin("NodeResourcesFit") is status
    assert status.plugin == "NodeResourcesFit"
    assert "NodeResourcesFit" in repr(status)


def test_none_is_success_and_success_is_shared() -> None:
    assert Status.success() is SUCCESS
    assert is_success(None)
    assert is_success(Status(Code.SUCCESS))
    assert not is_success(Status(Code.SKIP))


def test_from_error_keeps_the_exception() -> None:
    exc = ValueError("bad")
    status = Status.from_error(exc, plugin="X")
    assert status.is_error()
    assert status.error is exc
    assert status.message == "bad"
    assert status == Status(Code.ERROR, "bad", plugin="X")
