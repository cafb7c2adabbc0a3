"""klog-style text logs quote values: a newline, quote or ESC inside a value cannot forge
a log line or reach the terminal raw."""

from __future__ import annotations

import logging

from kubesched.framework.logkv import kv
from kubesched.server.logs import KlogFormatter, escape_value


def render(message: str, **pairs: object) -> str:
    record = logging.LogRecord("kubesched", logging.INFO, "app.py", 7, message, (), None)
    record.__dict__.update(kv(**pairs))
    return KlogFormatter().format(record)


def test_values_with_newlines_quotes_and_escapes_stay_on_one_line() -> None:
    holder = 'evil\nI1201 08:00:00.000000 1 app.py:1] "caches synced"\x1b[2J\\'
    line = render("waiting for leader lease", holder=holder, transitions=3)
    assert "\n" not in line
    assert "\x1b" not in line
    assert line.endswith(
        '] "waiting for leader lease" holder="evil\\nI1201 08:00:00.000000 1 app.py:1] '
        '\\"caches synced\\"\\x1b[2J\\\\" transitions=3'
    )


def test_plain_values_are_unchanged() -> None:
    assert render("connected", server="https://10.0.0.1:6443", port=6443).endswith(
        '] "connected" server="https://10.0.0.1:6443" port=6443'
    )


def test_non_string_values_are_escaped_too() -> None:
    error = ValueError("bad\nline")
    assert render("failed", err=error).endswith('"failed" err="bad\\nline"')


def test_the_message_is_escaped_too() -> None:
    assert render('a "quoted"\nmessage').endswith('] "a \\"quoted\\"\\nmessage"')


def test_a_library_message_with_arguments_has_them_escaped() -> None:
    record = logging.LogRecord("aiohttp", logging.INFO, "web.py", 7, "got %s", ("a\nb",), None)
    assert KlogFormatter().format(record).endswith("] got a\\nb")


def test_escape_value_follows_go_quoting() -> None:
    assert escape_value("a\tb\r\x00\x7f\u2028") == "a\\tb\\r\\x00\\x7f\\u2028"
