"""Unit tests. Every test folder is a package (`tests.unit.<area>`), so shared fakes import
by their full name from every folder (`from tests.unit.api_fakes import FakeApi`) and mypy
checks the tests as one tree."""

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
