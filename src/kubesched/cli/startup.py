"""What `kubesched run` says before the scheduler's own log starts: the notices (aliases
used, fields ignored) and a fatal error. As plain lines by default (`kubesched: <error>`); with
`--logging-format=json` as JSON log lines like every later one, the error as kube-scheduler
writes it then: `{"msg":"command failed","err":"..."}`.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Sequence

from kubesched.config import parse_options
from kubesched.framework.logkv import kv
from kubesched.server.logs import setup_logging

log = logging.getLogger("kubesched.startup")


class StartupOutput:
    """Prints start-up notices and errors in the format the command line asks for."""

    def __init__(self, argv: Sequence[str]) -> None:
        given = parse_options(argv).values.get("logging-format")
        self.json = given == "json"
        if self.json:
            setup_logging(logging_format="json")

    def notices(self, notices: Iterable[str]) -> None:
        for notice in notices:
            if self.json:
                log.info(notice)
            else:
                print(notice, file=sys.stderr)

    def error(self, text: str) -> int:
        """Say the fatal error; the exit code 1."""
        if self.json:
            log.error("command failed", extra=kv(err=text))
        else:
            print(f"kubesched: {text}", file=sys.stderr)
        return 1
