"""ApiError.from_status: the most specific subclass for each HTTP status and Status body."""

from __future__ import annotations

from typing import Any

import pytest

from kubesched.kube.errors import (
    AlreadyExists,
    ApiError,
    Conflict,
    ConnectionFailed,
    Forbidden,
    Gone,
    NotFound,
    TooManyRequests,
    Unauthorized,
)


def status_body(code: int, reason: str, message: str = "msg") -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "status": "Failure",
        "code": code,
        "reason": reason,
        "message": message,
    }


@pytest.mark.parametrize(
    ("status", "reason", "expected"),
    [
        (401, "Unauthorized", Unauthorized),
        (403, "Forbidden", Forbidden),
        (404, "NotFound", NotFound),
        (409, "Conflict", Conflict),
        (410, "Expired", Gone),
        (410, "Gone", Gone),
        (429, "TooManyRequests", TooManyRequests),
        (500, "InternalError", ApiError),
        (503, "ServiceUnavailable", ApiError),
    ],
)
def test_status_maps_to_subclass(status: int, reason: str, expected: type[ApiError]) -> None:
    err = ApiError.from_status(status, status_body(status, reason, "it failed"), path="/x")
    assert type(err) is expected
    assert err.status == status
    assert err.reason == reason
    assert err.message == "it failed"
    assert err.path == "/x"
    assert str(err) == f"{status} {reason}: it failed (/x)"


def test_conflict_is_not_already_exists() -> None:
    err = ApiError.from_status(409, status_body(409, "Conflict"))
    assert isinstance(err, Conflict)
    assert not isinstance(err, AlreadyExists)


def test_409_already_exists_is_a_conflict_too() -> None:
    err = ApiError.from_status(409, status_body(409, "AlreadyExists", 'pods "p" already exists'))
    assert type(err) is AlreadyExists
    assert isinstance(err, Conflict)
    assert err.message == 'pods "p" already exists'


def test_already_exists_reason_on_other_status_is_not_special() -> None:
    err = ApiError.from_status(500, status_body(500, "AlreadyExists"))
    assert type(err) is ApiError


def test_subclasses_are_api_errors() -> None:
    for cls in (NotFound, Conflict, AlreadyExists, Gone, Forbidden, TooManyRequests):
        assert issubclass(cls, ApiError)


@pytest.mark.parametrize(
    ("status", "default_reason"),
    [
        (401, "Unauthorized"),
        (403, "Forbidden"),
        (404, "NotFound"),
        (409, "Conflict"),
        (410, "Expired"),
        (429, "TooManyRequests"),
        (500, "InternalError"),
        (502, "Unknown"),
    ],
)
def test_missing_reason_gets_the_default(status: int, default_reason: str) -> None:
    err = ApiError.from_status(status, {"message": "m"})
    assert err.reason == default_reason
    assert err.message == "m"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (None, ""),
        ("upstream connect error", "upstream connect error"),
        (b"<html>bad gateway</html>", "<html>bad gateway</html>"),
        (b"\xff\xfeoops", "\ufffd\ufffdoops"),
        ([1, 2, 3], ""),
        (42, ""),
        ({"reason": None, "message": None}, ""),
        ({}, ""),
    ],
)
def test_non_status_bodies_never_fail(body: Any, message: str) -> None:
    err = ApiError.from_status(502, body)
    assert type(err) is ApiError
    assert err.status == 502
    assert err.reason == "Unknown"
    assert err.message == message


def test_non_dict_body_keeps_the_subclass() -> None:
    err = ApiError.from_status(404, b"404 page not found")
    assert type(err) is NotFound
    assert err.reason == "NotFound"
    assert err.message == "404 page not found"


def test_status_without_path_has_no_suffix() -> None:
    assert str(ApiError.from_status(404, status_body(404, "NotFound", "gone"))) == (
        "404 NotFound: gone"
    )


def test_connection_failed_has_status_zero() -> None:
    err = ConnectionFailed("refused", path="/api/v1/pods")
    assert isinstance(err, ApiError)
    assert err.status == 0
    assert err.reason == "ConnectionFailed"
    assert "refused" in str(err)
    assert err.path == "/api/v1/pods"
