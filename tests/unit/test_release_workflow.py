""".github/workflows/release.yml, which cannot run here (no GitHub runner, no registry): it
parses, runs on v* tags only, calls make targets the Makefile has, pushes the image `make image`
writes with crane (no daemon), and says that it is untested; the docs say how to do it by hand."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "release.yml"


def _workflow() -> dict[Any, Any]:
    document = yaml.safe_load(WORKFLOW.read_text())
    assert isinstance(document, dict)
    return document


def _runs() -> list[str]:
    (job,) = _workflow()["jobs"].values()
    return [step["run"] for step in job["steps"] if "run" in step]


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([A-Za-z0-9_.-]+):(?!=)", text, flags=re.MULTILINE))


def test_it_runs_on_version_tags_only() -> None:
    triggers = _workflow()[True]  # YAML 1.1 reads the key `on` as true
    assert triggers == {"push": {"tags": ["v*"]}}


def test_every_make_target_it_calls_exists() -> None:
    called: set[str] = set()
    for script in _runs():
        for line in script.replace("\\\n", " ").splitlines():
            words = shlex.split(line) if line.strip() else []
            if words and words[0] == "make":
                called.update(word for word in words[1:] if "=" not in word)
    assert called == {"dist", "venv", "image-push"}
    assert called <= _make_targets()


def test_it_pushes_both_platforms_with_make_image_push_and_crane() -> None:
    script = "\n".join(_runs())
    assert 'make image-push REGISTRY="${repository}"' in script
    assert "auth login ghcr.io" in script
    assert "skopeo" not in WORKFLOW.read_text()
    (job,) = _workflow()["jobs"].values()
    go = next(step for step in job["steps"] if step.get("uses", "").startswith("actions/setup-go"))
    go_mod = ROOT / go["with"]["go-version-file"]
    assert go_mod.is_file()
    assert not re.search(r"\bdocker (build|push)", script), "no container engine"
    (job,) = _workflow()["jobs"].values()
    assert job["container"] == "debian:12", "make image needs a Debian 12 host"


def test_it_and_the_docs_say_it_is_untested_and_how_to_release_by_hand() -> None:
    assert "UNTESTED" in WORKFLOW.read_text()
    operations = (ROOT / "docs" / "operations.md").read_text()
    section = operations.split("## Releasing by hand", 1)[1].split("\n## ", 1)[0]
    assert "untested" in section
    for command in ("make dist", "make image-push REGISTRY=ghcr.io/OWNER/kubesched", "auth login"):
        assert command in section
