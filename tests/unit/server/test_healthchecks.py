"""/healthz, /livez and /readyz answered as k8s.io/apiserver's healthz handlers."""

from __future__ import annotations

from multidict import MultiDict

from kubesched.server.healthchecks import answer, answer_one, passing
from kubesched.server.secure_port import WRITER_DOWN_TOLERANCE_SECONDS, health_checks

OK = ("ping", passing)
BROKEN = ("informers", lambda: "the pod informer stopped")


def test_all_passing_is_ok_and_verbose_lists_each_check() -> None:
    assert answer("readyz", [OK], MultiDict()) == (200, "ok")
    assert answer("readyz", [OK], MultiDict(verbose="")) == (
        200,
        "[+]ping ok\nreadyz check passed\n",
    )


def test_a_failure_lists_every_check_and_withholds_the_reason() -> None:
    status, body = answer("livez", [OK, BROKEN], MultiDict())
    assert status == 500
    assert body == "[+]ping ok\n[-]informers failed: reason withheld\nlivez check failed\n"
    assert "stopped" not in body


def test_exclude_skips_a_check_and_one_check_has_its_own_path() -> None:
    assert answer("livez", [OK, BROKEN], MultiDict(exclude="informers")) == (200, "ok")
    assert answer_one([OK, BROKEN], "ping") == (200, "ok")
    assert answer_one([OK, BROKEN], "informers") == (500, "internal server error: check failed\n")
    assert answer_one([OK], "nothing") is None


def test_the_writer_process_check_fails_only_after_its_tolerance() -> None:
    class Writer:
        gone = 0.0

        def down_for(self) -> float:
            return self.gone

    class Informers:
        def alive(self) -> bool:
            return True

        def ready(self) -> bool:
            return True

    writer = Writer()
    checks = health_checks(Informers(), None, writer)  # type: ignore[arg-type]
    livez = dict(checks.livez)
    assert livez["writer-process"]() is None
    writer.gone = WRITER_DOWN_TOLERANCE_SECONDS + 1
    assert livez["writer-process"]() is not None
    assert "writer-process" in dict(checks.healthz)
    assert "writer-process" not in dict(checks.readyz)
    assert "writer-process" not in dict(health_checks(Informers(), None).livez)  # type: ignore[arg-type]
