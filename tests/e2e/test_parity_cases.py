"""The parity cases (tests/parity_cases/*.yaml, or the files `PARITY_CASES` names, e.g. a
reproducer the differential test wrote) replayed on the real control plane: each pod under
test decided by kube-scheduler v1.37.2 and by kubesched must agree (harness.diff.compare).

The four hand-worked cases are the regression tests of issue 11: BalancedAllocation's change
in balance, NodeResourcesFit's score without pod-level resources, ImageLocality's one size
per image name, and explain's namespace labels for namespaceSelectors.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.harness import TEST_LABEL
from tests.e2e.harness.diff.compare import Tally
from tests.e2e.harness.diff.fixtures import record
from tests.e2e.harness.diff.reproducer import load_case
from tests.e2e.harness.diff.runner import Env, apply, decide, ensure_priority_classes

CASES_DIR = Path(__file__).parent.parent / "parity_cases"


def case_files() -> list[Path]:
    pattern = os.environ.get("PARITY_CASES", "")
    if pattern:
        return sorted(Path().glob(pattern))
    return sorted(CASES_DIR.glob("*.yaml"))


def _prepare(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Namespaces get the label that makes the test's clean-up remove them."""
    for obj in objects:
        if obj.get("kind") == "Namespace":
            obj["metadata"].setdefault("labels", {})[TEST_LABEL] = "true"
    return objects


@pytest.mark.parametrize("path", case_files(), ids=lambda p: p.stem)
def test_parity_case(path: Path, parity_env: Env) -> None:
    header, objects, incoming = load_case(path)
    profile = header.get("profile", "default")
    ensure_priority_classes(parity_env.api)
    apply(parity_env.api, _prepare(objects))
    namespaces = sorted(
        {p["metadata"]["namespace"] for p in incoming + objects if p.get("kind") == "Pod"}
    )
    tally = Tally()
    for pod in incoming:
        pod["spec"]["schedulerName"] = f"parity-{profile}"
        context = {"case": path.stem, "profile": profile}
        decide(parity_env, pod, tally, context=context, namespaces=namespaces)
    record(tally)
    print(f"PARITY case={path.stem} {tally.summary()}")
    details = "\n".join(f"  {m.comparison} {m.pod}: {m.detail}" for m in tally.mismatches)
    assert not tally.mismatches, f"{path.name}: {header.get('mismatches')}\n{details}"
    assert tally.checks["chosen-in-best"] + tally.checks["failed-scheduling"] == len(incoming)
