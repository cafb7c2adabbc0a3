"""On/off switches read from the environment (`KUBESCHED_INFORMER_PROCESS`,
`KUBESCHED_WRITER_PROCESS`): the one spelling of what turns a switch on."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

ON: Final = frozenset({"on", "1", "true", "yes"})
"""What turns a switch on (any case, blanks around ignored); anything else, unset
included, leaves it off."""


def switched_on(name: str, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the environment variable `name` (of `environ`, else the process's) is on."""
    env = os.environ if environ is None else environ
    return env.get(name, "").strip().lower() in ON
