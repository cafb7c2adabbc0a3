"""The installed package runs on its declared dependencies: numpy (a development tool here,
and matplotlib's for `kubesched bench`) is not one of them, so no module of the scheduler's
run path may import it (the image's e2e test found one that did)."""

from __future__ import annotations

import subprocess
import sys

RUN_PATH = (
    "kubesched.cli.run",
    "kubesched.server.app",
    "kubesched.server.logs",
    "kubesched.plugins",
    "kubesched.explain",
)


def test_the_scheduler_imports_without_numpy() -> None:
    code = (
        "import sys; sys.modules['numpy'] = None\n"  # `import numpy` now raises ImportError
        + "".join(f"import {module}\n" for module in RUN_PATH)
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
