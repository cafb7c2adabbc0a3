"""The /debug/waitingpods wire format: what the server encodes, explain decodes; anything
else is one PermitViewError line."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from kubesched.apis.waitingpods import (
    PermitViewError,
    WaitingPodList,
    WaitingPodRecord,
    decode,
    encode,
    timestamp,
)


def test_a_round_trip_keeps_every_field_to_the_millisecond() -> None:
    record = WaitingPodRecord("ml", "r-0", "u", "gang", "n1", ("Coscheduling",), 100.25, 130.5)
    listed = WaitingPodList(leading=True, observed_at=110.125, items=(record,))
    assert decode(encode(listed)) == listed
    assert timestamp(100.25) == "1970-01-01T00:01:40.250Z"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("nope", "the answer is not a WaitingPodList"),
        ({"kind": "Status"}, "the answer is not a WaitingPodList"),
        ({"kind": "WaitingPodList"}, "the WaitingPodList is malformed (KeyError"),
        (
            {"kind": "WaitingPodList", "observedAt": "2026-01-01T00:00:00Z", "items": {}},
            "the WaitingPodList is malformed (TypeError: items is not a list of objects)",
        ),
        (
            {
                "kind": "WaitingPodList",
                "observedAt": "2026-01-01T00:00:00Z",
                "items": [{"namespace": "a", "name": "b", "since": "yesterday", "deadline": ""}],
            },
            "the WaitingPodList is malformed (ValueError",
        ),
    ],
)
def test_anything_else_is_one_line(doc: Collection[str], message: str) -> None:
    with pytest.raises(PermitViewError) as caught:
        decode(doc)
    assert str(caught.value).startswith(message)
