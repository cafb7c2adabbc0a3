"""The CRDs kubesched's plugins read, from one source (kubesched.manifests.crds): printed alone
by `kubesched manifests --crds-only` (to install them without Helm) and committed in the
chart's `crds/`, which Helm installs before the templates."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from kubesched.cli import main as kubesched
from kubesched.localcluster.scheduler_plugins import crd_documents
from kubesched.manifests.chart import crd_files
from kubesched.manifests.crd_topology import node_resource_topology_crd
from kubesched.manifests.crds import crd_objects, elastic_quota_crd, pod_group_crd

CRDS = Path(__file__).parents[3] / "charts" / "kubesched" / "crds"
Capture = pytest.CaptureFixture[str]


def run(capsys: Capture, *argv: str) -> tuple[int, str, str]:
    code = kubesched(["manifests", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_crds_only_prints_the_crds_alone(capsys: Capture) -> None:
    code, out, err = run(capsys, "--crds-only")

    assert (code, err) == (0, "")
    assert list(yaml.safe_load_all(out)) == crd_objects()
    assert crd_objects() == [elastic_quota_crd(), node_resource_topology_crd(), pod_group_crd()]


def test_crds_only_prints_what_with_crds_adds(capsys: Capture) -> None:
    _, everything, _ = run(capsys, "--with-crds", "--scheduler-name=s1")
    _, alone, _ = run(capsys, "--crds-only", "--scheduler-name=s1")

    crds = [d for d in yaml.safe_load_all(everything) if d["kind"] == "CustomResourceDefinition"]
    assert list(yaml.safe_load_all(alone)) == crds


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        pytest.param(
            ["--crds-only", "--helm-chart=/tmp/x"],
            "--crds-only prints the CRDs and --helm-chart writes a chart, whose crds/ holds "
            "them: pass one of the two",
            id="with-helm-chart",
        ),
        pytest.param(
            ["--crds-only", "--namespace=Bad_NS"],
            "--namespace: 'Bad_NS' is not a valid namespace name",
            id="bad-namespace",
        ),
        pytest.param(
            ["--crds-only", "--crds-onyl"],
            "unknown flag --crds-onyl (did you mean --crds-only?)",
            id="typo",
        ),
    ],
)
def test_crds_only_refuses_in_one_line(capsys: Capture, argv: list[str], expected: str) -> None:
    code, out, err = run(capsys, *argv)

    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1
    assert expected in err


def test_the_chart_s_crds_are_the_generated_ones() -> None:
    committed = {path.name: path.read_text() for path in CRDS.iterdir()}

    assert committed == crd_files()
    documents = [yaml.safe_load(committed[name]) for name in sorted(committed)]
    assert documents == crd_objects()
    assert sorted(committed) == [f"{crd['metadata']['name']}.yaml" for crd in crd_objects()]


def _without_descriptions(node: object) -> object:
    if isinstance(node, dict):
        return {k: _without_descriptions(v) for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_without_descriptions(v) for v in node]
    return node


def test_the_elastic_quota_crd_matches_scheduler_plugins_pinned_one() -> None:
    """The CRD kubesched ships serves what scheduler-plugins v0.35.4-devel's does (the copy
    pinned for its build, kubesched.localcluster.scheduler_plugins): names, scope, version,
    status subresource, printer columns and schema, descriptions aside."""
    [pinned] = [
        doc
        for doc in crd_documents()
        if doc["metadata"]["name"] == "elasticquotas.scheduling.x-k8s.io"
    ]
    ours = elastic_quota_crd()
    assert ours["spec"]["names"] == pinned["spec"]["names"]
    assert (ours["spec"]["group"], ours["spec"]["scope"]) == (
        pinned["spec"]["group"],
        pinned["spec"]["scope"],
    )
    assert _without_descriptions(ours["spec"]["versions"]) == _without_descriptions(
        pinned["spec"]["versions"]
    )
