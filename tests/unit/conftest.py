"""Unit tests. This conftest puts `tests/unit` on `sys.path` (pytest's prepend import mode), so
shared fakes such as `api_fakes` import from every test folder."""

from collections.abc import Iterator

import pytest

from kubesched.server.logs import KlogFormatter


@pytest.fixture
def caplog(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """`caplog.text` as kubesched writes its lines: a structured call's message with its
    key/value pairs (`"events dropped" count=3 ...`), not the bare message."""
    formatter = caplog.handler.formatter
    caplog.handler.setFormatter(KlogFormatter())
    yield caplog
    caplog.handler.setFormatter(formatter)
