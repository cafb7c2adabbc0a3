"""kube-apiserver of an older Kubernetes release, built once (like the other binaries, into
`${KUBESCHED_CACHE_DIR:-~/.cache/kubesched}/bin/k8s-older-<version>/`) from the wrapper
module `tests/e2e/older_apiserver/`: about 10 minutes of CPU cold on 2 cores.

`make older-apiserver` builds it and runs the older-release test; `make test` runs that test
only once the binary is cached (`python -m tests.e2e.harness.older_apiserver --cached`).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from kubesched.localcluster import Binaries, ensure_binaries
from kubesched.localcluster.binaries import cached, ensure_module
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


def main(argv: list[str]) -> int:
    """Print the older kube-apiserver's path, building it if needed; with `--cached`, exit 1
    instead of building."""
    if "--cached" in argv:
        found = cached(older_module(), ["kube-apiserver"])
        if found is None:
            return 1
        print(found["kube-apiserver"])
        return 0
    print(older_binaries().kube_apiserver)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
