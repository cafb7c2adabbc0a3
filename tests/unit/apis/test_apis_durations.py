import pytest

from kubesched.apis.durations import DurationError, format_duration, parse_duration


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("15s", 15.0),
        ("10s", 10.0),
        ("2s", 2.0),
        ("1m30s", 90.0),
        ("500ms", 0.5),
        ("1.5s", 1.5),
        ("1h", 3600.0),
        ("2h45m", 9900.0),
        ("0", 0.0),
        ("0s", 0.0),
        ("-1.5h", -5400.0),
        ("+3s", 3.0),
        ("300us", 0.0003),
        ("300\u00b5s", 0.0003),
        ("300\u03bcs", 0.0003),
        ("1ns", 1e-9),
        (".5s", 0.5),
        ("5.s", 5.0),
        ("1h1m1s1ms", 3661.001),
    ],
)
def test_parses_go_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "invalid duration"),
        ("15", "missing unit"),
        ("15x", 'unknown unit "x"'),
        ("s", "invalid duration"),
        (".s", "invalid duration"),
        ("1.2.3s", "missing unit"),
        ("1 s", "unknown unit"),
        ("-", "invalid duration"),
        ("3000000h", "out of range"),
        ("15S", "unknown unit"),
    ],
)
def test_rejects_what_go_rejects(text: str, reason: str) -> None:
    with pytest.raises(DurationError, match=reason.replace('"', "'")):
        parse_duration(text)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (15, "15s"),
        (90, "1m30s"),
        (0.5, "500ms"),
        (3600, "1h0m0s"),
        (0, "0s"),
        (1.5, "1.5s"),
        (0.0003, "300\u00b5s"),
        (1e-9, "1ns"),
        (-2, "-2s"),
        (9900.5, "2h45m0.5s"),
        (2.4, "2.4s"),
    ],
)
def test_formats_like_go(seconds: float, text: str) -> None:
    assert format_duration(seconds) == text


@pytest.mark.parametrize("text", ["15s", "1m30s", "500ms", "1h0m0s", "2.5s", "1.000000001s"])
def test_round_trips(text: str) -> None:
    assert format_duration(parse_duration(text)) == text
