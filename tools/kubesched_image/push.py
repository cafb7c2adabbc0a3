"""`make image-push REGISTRY=host/repo`: the OCI layout `make image` wrote, pushed without a
container engine by crane (go-containerregistry's registry client, built from its Go module
like the control plane's binaries: kubesched.localcluster.ensure_crane). A layout holding an
image index (`IMAGE_PLATFORMS=linux/amd64,linux/arm64`) is pushed as that index."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

from kubesched.localcluster.binaries import ensure_crane
from kubesched.localcluster.errors import LocalClusterError
from kubesched_image.errors import ImageError, Progress

USAGE = "set REGISTRY to host[:port]/repository without a tag, e.g. registry.example.com/kubesched"
_REPOSITORY = re.compile(r"[a-z0-9]+(?:[._-]+[a-z0-9]+)*(?:/[a-z0-9]+(?:[._-]+[a-z0-9]+)*)*")
_HOST = re.compile(r"[A-Za-z0-9.-]+(?::[0-9]+)?|\[[0-9a-fA-F:]+\](?::[0-9]+)?")


def reference(registry: str, tag: str) -> str:
    """`host/repo` and `0.1.0` -> `host/repo:0.1.0`; a REGISTRY that is not `host[:port]/repo`
    is one line saying the fix."""
    value = registry.strip().rstrip("/")
    if not value:
        raise ImageError(f"REGISTRY is empty: {USAGE}")
    if "://" in value:
        raise ImageError(
            f"REGISTRY={registry} has a scheme: leave out {value.split('://')[0]}://; {USAGE}"
        )
    host, _, path = value.partition("/")
    if "@" in value or ":" in path:
        raise ImageError(f"REGISTRY={registry} names a tag or digest: {USAGE} (the tag is {tag})")
    if not path or not _HOST.fullmatch(host) or not _REPOSITORY.fullmatch(path):
        raise ImageError(
            f"REGISTRY={registry} is not host[:port]/repository in lower case: {USAGE}"
        )
    return f"{value}:{tag}"


def crane(progress: Progress) -> Path:
    try:
        return ensure_crane(progress=progress)
    except LocalClusterError as error:
        raise ImageError(str(error), details=error.details) from None


def push(layout: Path, ref: str, *, extra_args: Sequence[str] = (), progress: Progress) -> str:
    """Push the layout to `ref`; the pushed image's reference by digest (`ref@sha256:...`)."""
    binary = crane(progress)
    progress(f"image: crane push {layout} {ref}")
    argv = [str(binary), "push", *extra_args, str(layout), ref]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ImageError(_failure(done.stderr, ref))  # crane's last line is in it
    pushed = done.stdout.strip().splitlines()[-1:] or [""]
    if "@sha256:" not in pushed[0]:
        raise ImageError(f"crane push {ref} printed no digest: {done.stdout.strip()!r}")
    tag = ref.rpartition(":")[2]
    repository = pushed[0].partition("@")[0]
    return f"{repository}:{tag}@{pushed[0].partition('@')[2]}"


def _failure(stderr: str, ref: str) -> str:
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "no output"
    last = re.sub(r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d ", "", last).removeprefix("Error: ")
    lowered = stderr.lower()
    if "unauthorized" in lowered or "denied" in lowered or "authentication required" in lowered:
        fix = "log in first (`crane auth login HOST -u USER -p ...` or `docker login HOST`)"
    elif "http response to https client" in lowered:
        fix = "the registry speaks plain HTTP: add IMAGE_PUSH_ARGS=--insecure"
    elif "connection refused" in lowered or "no such host" in lowered:
        fix = "check the registry's address and that it is reachable"
    else:
        fix = "see crane's output below"
    return f"crane push to {ref} failed: {last}: {fix}"
