"""Helpers of the Helm chart tests: run helm and `kubesched manifests`, and bring both
outputs to the form in which they must be equal."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from kubesched.config import load_config
from kubesched.config.dump import to_document
from kubesched.localcluster import LocalCluster
from kubesched.localcluster.flags import KubeconfigSpec, kubeconfig
from tests.e2e.harness import ApiClient

CHART = Path(__file__).parents[2] / "charts" / "kubesched"
CONFIG_HASH = "kubesched.io/config-hash"
# Labels by which a Helm release differs from `kubectl apply`: who manages it, which chart
# and version.
HELM_ONLY_LABELS = ("app.kubernetes.io/managed-by", "helm.sh/chart", "app.kubernetes.io/version")
# The instance label (in selectors too): Helm's release name, or the object name of
# `kubesched manifests`.
INSTANCE = "app.kubernetes.io/instance"


def run(argv: list[str], *, timeout: float = 120) -> str:
    """stdout of `argv`; the test fails with its stderr when it fails."""
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    assert result.returncode == 0, f"{' '.join(argv)}\n{result.stderr}"
    return result.stdout


def manifests(*flags: str) -> list[dict[str, Any]]:
    """The objects of the real command line `kubesched manifests FLAGS`."""
    return _documents(run([sys.executable, "-m", "kubesched", "manifests", *flags]))


def helm_template(
    helm: Path, namespace: str, *sets: str, release: str = "kubesched"
) -> list[dict[str, Any]]:
    """The objects of `helm template` of the chart in `namespace`."""
    argv = [str(helm), "template", release, str(CHART), f"--namespace={namespace}", *sets]
    return _documents(run(argv))


def helm_refusal(helm: Path, *sets: str) -> str:
    """stderr of `helm template` of the chart with `sets`, which must fail."""
    argv = [str(helm), "template", "kubesched", str(CHART), *sets]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode != 0, f"{' '.join(argv)} rendered:\n{result.stdout[:2000]}"
    return result.stderr


def comparable(
    objects: list[dict[str, Any]], *, namespace: str, tmp_path: Path
) -> dict[tuple[str, str], Any]:
    """(kind, name) -> object, with the release's Namespace left out (helm makes it with
    --create-namespace), Helm's hooks left out (the config check and `helm test` have no
    counterpart in `kubesched manifests`), Helm's own labels and resource policy dropped, the
    instance label's value (the release or the object name) made one placeholder, the chart's
    ConfigMap name without its config hash and immutability (`kubectl apply` edits one
    ConfigMap in place), and the ConfigMap's config.yaml replaced by the completed
    configuration kubesched reads from it (the chart writes only what the values set;
    `kubesched manifests` writes every default)."""
    found = {}
    for obj in objects:
        kind, meta = obj["kind"], obj["metadata"]
        if kind == "Namespace" and meta["name"] == namespace:
            continue
        if HOOK in meta.get("annotations", {}):
            continue
        _drop_helm_labels(obj)
        _blank_instance(obj)
        if meta.get("annotations", {}).pop(KEEP, None) == "keep" and not meta["annotations"]:
            del meta["annotations"]
        if kind == "ConfigMap":
            assert obj.pop("immutable", True) is True
            meta["name"] = unhashed(meta["name"])
            obj["data"]["config.yaml"] = _completed(obj["data"]["config.yaml"], namespace, tmp_path)
        if kind == "Deployment":
            annotations = obj["spec"]["template"]["metadata"]["annotations"]
            assert len(annotations.pop(CONFIG_HASH)) == 16
            volume = obj["spec"]["template"]["spec"]["volumes"][0]["configMap"]
            volume["name"] = unhashed(volume["name"])
        found[kind, meta["name"]] = obj
    return found


HOOK = "helm.sh/hook"
KEEP = "helm.sh/resource-policy"
_HASHED = re.compile(r"^(?P<name>.+-config)-[0-9a-f]{16}$")


def unhashed(name: str) -> str:
    """The chart's `<name>-config-<config hash>` as `kubesched manifests` names it."""
    found = _HASHED.match(name)
    return found["name"] if found else name


def _drop_helm_labels(obj: dict[str, Any]) -> None:
    holders = [obj["metadata"]]
    template = obj.get("spec", {}).get("template")
    if isinstance(template, dict):
        holders.append(template["metadata"])
    for meta in holders:
        for label in HELM_ONLY_LABELS:
            meta.get("labels", {}).pop(label, None)


def _blank_instance(node: Any) -> None:
    """Every instance label's value, wherever it is (labels, selectors), made `<instance>`."""
    if isinstance(node, dict):
        if INSTANCE in node:
            node[INSTANCE] = "<instance>"
        for value in node.values():
            _blank_instance(value)
    elif isinstance(node, list):
        for value in node:
            _blank_instance(value)


def instances(objects: list[dict[str, Any]]) -> set[str]:
    """The values of every instance label in `objects` (labels and selectors)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if INSTANCE in node:
                found.add(node[INSTANCE])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(objects)
    return found


def _completed(text: str, namespace: str, tmp_path: Path) -> Any:
    path = tmp_path / f"config-{abs(hash(text))}.yaml"
    path.write_text(text)
    result = load_config(
        [f"--config={path}"], environ={"POD_NAMESPACE": namespace}, namespace_file=tmp_path / "no"
    )
    return to_document(result.config)  # in effect: each profile merged with the defaults


def _documents(text: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(text) if doc]


def _service_account_kubeconfig(cluster: LocalCluster, ns: str, account: str, path: Path) -> Path:
    token = cluster.kubectl("create", "token", account, "-n", ns).stdout.strip()
    spec = KubeconfigSpec(
        server=cluster.server, ca_file=cluster.ca_file, token=token, user="service-account"
    )
    path.write_text(kubeconfig(spec))
    path.chmod(0o600)
    return path


def as_installed(
    api: ApiClient, cluster: LocalCluster, ns: str, name: str, tmp_path: Path
) -> list[str]:
    """kubesched's arguments as the pod of an installed release (objects named `name`) would
    run: the config of the ConfigMap its Deployment mounts (reaching the API server with the
    installed ServiceAccount's token) and the Deployment's arguments but --config and
    --cert-dir (the local process has its own)."""
    deployment = api.get("Deployment", name, namespace=ns)
    pod = deployment["spec"]["template"]["spec"]
    (mounted,) = [v["configMap"]["name"] for v in pod["volumes"] if v["name"] == "config"]
    config = yaml.safe_load(api.get("ConfigMap", mounted, namespace=ns)["data"]["config.yaml"])
    account = _service_account_kubeconfig(cluster, ns, name, tmp_path / "sa.kubeconfig")
    config["clientConnection"] = {"kubeconfig": str(account)}
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config))
    args = pod["containers"][0]["args"]
    kept = [arg for arg in args if not arg.startswith(("--config=", "--cert-dir="))]
    return [f"--config={path}", *kept]
