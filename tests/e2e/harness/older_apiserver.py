"""kube-apiserver of an older Kubernetes release, built once (like the other binaries, into
`${KUBESCHED_CACHE_DIR:-~/.cache/kubesched}/bin/k8s-older-<version>/`) from the wrapper
module `tests/e2e/older_apiserver/`: about 10 minutes of CPU cold on 2 cores.

`make older-apiserver` builds it ahead; the older-release test builds it when missing.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from kubesched.localcluster import Binaries, ensure_binaries
from kubesched.localcluster.binaries import ensure_module
from kubesched.localcluster.gobuild import GoModule, k8s_ldflags, required_version

MODULE_DIR = Path(__file__).resolve().parent.parent / "older_apiserver"


def older_module() -> GoModule:
    version = required_version(MODULE_DIR / "go.mod", "k8s.io/kubernetes")
    packages = {"kube-apiserver": "k8s.io/kubernetes/cmd/kube-apiserver"}
    return GoModule("k8s-older", MODULE_DIR, version, packages, k8s_ldflags(version))


def older_binaries() -> Binaries:
    """The pinned binaries, with the older release's kube-apiserver."""
    apiserver = ensure_module(older_module())["kube-apiserver"]
    return dataclasses.replace(ensure_binaries(), kube_apiserver=apiserver)


if __name__ == "__main__":
    print(older_binaries().kube_apiserver)
