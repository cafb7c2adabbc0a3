"""kwok of the local cluster: the fake kubelets of the nodes labelled `NODE_LABEL`.

kwok watches the nodes matching its label selector and, for each: renews its Node Lease
(the heartbeat the node lifecycle controller watches), plays the stages of
`kwok_stages` (node Ready, pods Running, Job pods Succeeded, deletions completed). Nodes
without the label are left alone, so plain API-object nodes keep working as before, and
removing the label from a node is how a test makes its "kubelet" die.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kubesched.localcluster.binaries import Binaries
from kubesched.localcluster.flags import merge_flags
from kubesched.localcluster.kwok_stages import stages_yaml
from kubesched.localcluster.launch import Launch
from kubesched.localcluster.probe import Endpoint, free_ports, get

NODE_LABEL = ("kwok.x-k8s.io/node", "fake")
"""The label (key, value) of the nodes kwok manages."""
POD_CIDR = "10.244.0.0/16"
"""Where kwok takes pod IPs from (apart from the service range 10.0.0.0/24)."""


def node_selector() -> str:
    """`NODE_LABEL` as a label selector."""
    return "=".join(NODE_LABEL)


@dataclass(frozen=True)
class KwokFiles:
    """What kwok reads (kubeconfig, stages), its own workdir and its log."""

    kubeconfig: Path
    stages: Path
    workdir: Path
    log: Path


def write_kwok_files(files: KwokFiles) -> None:
    """Write the stages file and create kwok's workdir."""
    files.workdir.mkdir(parents=True, exist_ok=True)
    files.stages.write_text(stages_yaml())


def kwok_env(files: KwokFiles, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment of kwok: its workdir is ours, so a `~/.kwok/kwok.yaml` of the user
    is never merged into its configuration."""
    return {**environ, "KWOK_WORKDIR": str(files.workdir)}


def kwok_args(
    *,
    files: KwokFiles,
    port: int,
    lease_duration: int,
    selector: str,
    extra: Sequence[str] = (),
) -> list[str]:
    """kwok flags: manage the nodes matching `selector`, serve /healthz on loopback."""
    flags = {
        "--kubeconfig": str(files.kubeconfig),
        "--config": str(files.stages),
        "--manage-nodes-with-label-selector": selector,
        "--server-address": f"127.0.0.1:{port}",
        "--node-lease-duration-seconds": str(lease_duration),
        "--cidr": POD_CIDR,
        "--node-ip": "127.0.0.1",
        "--v": "WARN",  # INFO logs every Lease renewal of every node
    }
    return merge_flags(flags, extra)


def kwok_launch(
    binaries: Binaries,
    *,
    files: KwokFiles,
    lease_duration: int,
    selector: str,
    extra: Sequence[str],
) -> Launch:
    """kwok on a new free port; ready once its /healthz answers (it serves only after it
    synced its informers and started its controllers)."""

    def launch() -> tuple[list[str], Callable[[], bool]]:
        port = free_ports(1)[0]
        args = kwok_args(
            files=files, port=port, lease_duration=lease_duration, selector=selector, extra=extra
        )
        endpoint = Endpoint(f"http://127.0.0.1:{port}")
        return [str(binaries.kwok), *args], lambda: get(endpoint, "/healthz")[0] == 200

    return launch
