"""The test binary of Kubernetes' test/e2e/scheduling specs: built from the wrapper Go module
`tools/conformance` (`go test -c`) and cached like the control-plane binaries, in
`~/.cache/kubesched/bin/conformance-<version>/`, rebuilt when the module changes."""

from __future__ import annotations

from pathlib import Path

from kubesched.localcluster import gobuild
from kubesched.localcluster.binaries import ensure_module

MODULE_DIR = Path(__file__).resolve().parents[1] / "conformance"
"""The wrapper module: go.mod pins k8s.io/kubernetes, conformance_test.go sets the suite up."""
BINARY = "e2e-scheduling.test"


def conformance_module() -> gobuild.GoModule:
    """The wrapper module as a test binary, its version stamped like the control plane's."""
    version = gobuild.required_version(MODULE_DIR / "go.mod", "k8s.io/kubernetes")
    return gobuild.GoModule(
        "conformance",
        MODULE_DIR,
        version,
        {BINARY: "."},
        gobuild.k8s_ldflags(version),
        test=True,
    )


def ensure_conformance_binary(*, progress: gobuild.Progress = gobuild.default_progress) -> Path:
    """The cached test binary; built first when missing or stale (minutes when cold)."""
    return ensure_module(conformance_module(), progress=progress)[BINARY]
