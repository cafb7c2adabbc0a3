"""Feature gates of the local control plane: one `A=true,B=false` value given to every
component (kube-apiserver, each kube-scheduler, kube-controller-manager), with the API
versions the gates need served.

    gates = parse("GenericWorkload=true,TopologyAwareWorkloadScheduling=true")
    check(gates, binaries)          # each component's own verdict, before anything starts
    apiserver_args(gates)           # --feature-gates, --runtime-config, admission plugins

The components judge the gates themselves (`<binary> --feature-gates=... --version` fails
as the component would at start-up: an unknown name, a gate whose dependencies are off), so
this module holds no copy of upstream's gate list; it only knows which API versions a gate's
objects are served in, which kube-apiserver does not switch on by itself.
"""

from __future__ import annotations

import difflib
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path

from kubesched.localcluster.binaries import Binaries
from kubesched.localcluster.errors import LocalClusterError

GENERIC_WORKLOAD = "GenericWorkload"
TOPOLOGY_GATES = "GenericWorkload=true,TopologyAwareWorkloadScheduling=true"
"""kube-scheduler v1.37's topology-aware gang scheduling (alpha) and what it depends on."""

SERVED_VERSIONS: dict[str, tuple[str, ...]] = {
    # Workloads and PodGroups (beta).
    GENERIC_WORKLOAD: ("scheduling.k8s.io/v1beta1",),
    # CompositePodGroups exist in v1alpha3 only; kube-scheduler watches them with the gate.
    "CompositePodGroup": ("scheduling.k8s.io/v1alpha3",),
}
"""Gate -> the API versions kube-apiserver must serve (`--runtime-config`) when it is on."""

BASE_ADMISSION_OFF = "ServiceAccount,TaintNodesByCondition"
"""The admission plugins `flags.apiserver_args` turns off."""

_PAIR = re.compile(r"^[A-Za-z][A-Za-z0-9]*=(true|false)$")
_FAILED = re.compile(r'"command failed" err="(?P<err>.*)"')
_DEPENDS = re.compile(r"depends on features that are disabled: \[(?P<names>[^\]]*)\]")
_UNKNOWN = re.compile(r"unrecognized feature gate: (?P<name>\S+)")


def parse(text: str, *, flag: str = "--feature-gates") -> dict[str, bool]:
    """`A=true,B=false` -> gate -> enabled; a malformed pair is a one-line error."""
    gates: dict[str, bool] = {}
    for pair in (item.strip() for item in text.split(",")):
        if not pair:
            continue
        if not _PAIR.match(pair):
            raise LocalClusterError(
                f"{flag}={text}: {pair!r} is not Name=true|false; write e.g. "
                f"{flag}={TOPOLOGY_GATES}"
            )
        name, _, value = pair.partition("=")
        gates[name] = value == "true"
    return gates


def render(gates: Mapping[str, bool]) -> str:
    """gate -> enabled as `A=true,B=false` (in the given order)."""
    return ",".join(f"{name}={str(on).lower()}" for name, on in gates.items())


def enabled(gates: Mapping[str, bool]) -> list[str]:
    """The gates turned on, in order."""
    return [name for name, on in gates.items() if on]


def apiserver_args(gates: Mapping[str, bool]) -> list[str]:
    """kube-apiserver's flags for `gates`: the gates themselves, the API versions they need
    served, and, with GenericWorkload on, the PodGroupProtection admission plugin off (it puts
    a finalizer on every PodGroup that only kube-controller-manager removes: without it,
    namespaces holding PodGroups would never finish deleting)."""
    if not gates:
        return []
    args = [f"--feature-gates={render(gates)}"]
    versions = [v for name in enabled(gates) for v in SERVED_VERSIONS.get(name, ())]
    if versions:
        args.append("--runtime-config=" + ",".join(f"{v}=true" for v in versions))
    if gates.get(GENERIC_WORKLOAD):
        args.append(f"--disable-admission-plugins={BASE_ADMISSION_OFF},PodGroupProtection")
    return args


def check(gates: Mapping[str, bool], binaries: Binaries) -> None:
    """Ask kube-apiserver, kube-scheduler and kube-controller-manager whether they take
    `gates` (each as it would at start-up); the first refusal is a `LocalClusterError` of one
    line that names the fix."""
    if not gates:
        return
    value = render(gates)
    for name, path in (
        ("kube-apiserver", binaries.kube_apiserver),
        ("kube-scheduler", binaries.kube_scheduler),
        ("kube-controller-manager", binaries.kube_controller_manager),
    ):
        refusal = _refusal(path, value)
        if refusal:
            raise LocalClusterError(
                f"--feature-gates={value}: {name} refuses it: {refusal}; "
                f"{fix(refusal, known=lambda p=path: known_gates(p), component=name)}"
            )


def _refusal(binary: Path, value: str) -> str:
    """What `binary` says of `--feature-gates=value` ("" when it takes it)."""
    argv = [str(binary), f"--feature-gates={value}", "--version"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    if done.returncode == 0:
        return ""
    found = _FAILED.search(done.stderr)
    return found.group("err").replace('\\"', '"') if found else done.stderr.strip()[-300:]


def fix(refusal: str, *, known: object = None, component: str = "kube-scheduler") -> str:
    """The fix of `component`'s refusal of the gates, in a few words (`known()`: the gate
    names it knows, for a misspelt one)."""
    depends = _DEPENDS.search(refusal)
    if depends:
        names = depends.group("names").split()
        return "add " + ",".join(f"{name}=true" for name in names)
    unknown = _UNKNOWN.search(refusal)
    if unknown:
        names = known() if callable(known) else []
        close = difflib.get_close_matches(unknown.group("name"), names, n=1)
        if close:
            return f"did you mean {close[0]}?"
        return f"drop it (`{component} --help` lists the gates it knows)"
    return f"write Name=true|false pairs, e.g. --feature-gates={TOPOLOGY_GATES}"


def known_gates(binary: Path) -> list[str]:
    """The gate names `binary --help` lists (`kube:Name=true|false (...)`)."""
    done = subprocess.run(
        [str(binary), "--help"], capture_output=True, text=True, timeout=30, check=False
    )
    return re.findall(r"kube:([A-Za-z0-9]+)=true\|false", done.stdout + done.stderr)
