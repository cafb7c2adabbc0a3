"""kube-apiserver flags that write an audit log, for tests that check what a process sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def audit_flags(policy: dict[str, Any], *, folder: Path, log: Path) -> tuple[str, ...]:
    """Flags writing `log` (JSON lines, blocking: an entry is there once the request is
    answered) by `policy`, which is stored in `folder`."""
    policy_file = folder / "policy.json"
    policy_file.write_text(json.dumps(policy))
    return (
        f"--audit-policy-file={policy_file}",
        f"--audit-log-path={log}",
        "--audit-log-format=json",
        "--audit-log-mode=blocking",
    )
