"""The Helm chart `charts/kubesched`, written from the manifests model (`make chart`).

    write_chart(Path("charts/kubesched"), config, options, declared=in_tree_resources())

Its templates are the objects `kubesched manifests` builds, with the values a chart user
chooses put in by `markers`; its default values are `config` and `options`, so that
`helm template` with them renders the objects `kubesched manifests` prints (the Namespace of
the release aside: `helm install --create-namespace` makes it). The ClusterRole's rules
follow the profiles and feature gates of the values as `kubesched manifests` derives them
(`declared`: what each in-tree plugin reads). values.yaml, values.schema.json and the README's
table of values are written from one tree of documented values (`values.value_tree`,
`spec`). `crds/` holds the CRDs of `kubesched manifests --crds-only`, which Helm installs
before the templates. A test fails when the committed chart differs from what this writes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kubesched.apis import support
from kubesched.apis.config import KubeSchedulerConfiguration
from kubesched.apis.resources import ResourceSpec
from kubesched.manifests.chart import home, hooks, monitoring, spec
from kubesched.manifests.chart.helpers import helpers_tpl
from kubesched.manifests.chart.objects import (
    HEADER,
    TOKEN_NAMES,
    Source,
    render_templates,
    spread_affinity,
)
from kubesched.manifests.chart.values import value_tree
from kubesched.manifests.crds import crd_objects
from kubesched.manifests.options import APP_VERSION, DEFAULT_IMAGE, ManifestOptions
from kubesched.manifests.render import to_yaml

CHART_NAME = "kubesched"
CHART_VERSION = APP_VERSION
REGENERATE = "make chart"
README = Path(__file__).parent / "readme.md.txt"

__all__ = ["CHART_NAME", "REGENERATE", "chart_files", "crd_files", "write_chart"]


def chart_files(
    config: KubeSchedulerConfiguration,
    options: ManifestOptions,
    *,
    declared: Mapping[str, tuple[ResourceSpec, ...]],
) -> dict[str, str]:
    """Relative path in the chart -> text, for every generated file; `declared`: plugin
    name -> the resources it reads, for the in-tree plugins that read some."""
    tree = value_tree(config, options, app_version=APP_VERSION)
    token_suffix = TOKEN_NAMES.metrics_reader_token.removeprefix(TOKEN_NAMES.name)
    files = {
        "Chart.yaml": _chart_yaml(),
        "values.yaml": HEADER + spec.values_yaml(tree),
        "values.schema.json": spec.schema_json(spec.json_schema(tree, title=_TITLE)),
        "README.md": _readme(tree),
        "templates/_helpers.tpl": HEADER.replace("#", "{{/*", 1).rstrip("\n")
        + " */}}\n"
        + helpers_tpl(spread_affinity(), token_suffix=token_suffix),
        "templates/NOTES.txt": _notes(),
        ".helmignore": "dashboards/*.png\n",
    }
    source = Source(config, declared)
    templates = {
        **render_templates(source),
        **hooks.templates(source),
        **monitoring.templates(),
    }
    files.update(
        {
            f"templates/{name}": HEADER + text.removeprefix(HEADER)
            for name, text in templates.items()
        }
    )
    files.update({f"crds/{name}": text for name, text in crd_files().items()})
    return files


def crd_files() -> dict[str, str]:
    """The chart's `crds/`: one file per CRD (`<plural>.<group>.yaml`), as
    `kubesched manifests --crds-only` prints it."""
    return {
        f"{crd['metadata']['name']}.yaml": HEADER + to_yaml([crd]).removeprefix("---\n")
        for crd in crd_objects()
    }


_TITLE = "Values of the kubesched chart"


def _readme(tree: tuple[spec.Entry, ...]) -> str:
    """The chart's README: the text beside this module, with the table of every value."""
    comment = HEADER.removeprefix("# ").rstrip("\n")
    text = README.read_text(encoding="utf-8").replace("VALUES_TABLE\n", spec.markdown_table(tree))
    return f"<!-- {comment} -->\n{text}"


def write_chart(
    folder: Path,
    config: KubeSchedulerConfiguration,
    options: ManifestOptions,
    *,
    declared: Mapping[str, tuple[ResourceSpec, ...]],
) -> list[Path]:
    """Write the generated files into `folder` (other files there, e.g. dashboards/, stay)."""
    written = []
    for relative, text in chart_files(config, options, declared=declared).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def _chart_yaml() -> str:
    return HEADER + (
        "apiVersion: v2\n"
        f"name: {CHART_NAME}\n"
        "description: kubesched, a Kubernetes scheduler in Python running beside kube-scheduler\n"
        "type: application\n"
        f"version: {CHART_VERSION}\n"
        f'appVersion: "{APP_VERSION}"\n'
        f'kubeVersion: "{KUBE_VERSION}"\n'
        f"home: {home.REPOSITORY}\n"
        f"sources:\n- {home.REPOSITORY}\n"
        f"icon: {home.ICON}\n"
        "keywords: [scheduler, kube-scheduler, second-scheduler]\n"
    )


KUBE_VERSION = f">=1.{support.MINIMUM_MINOR}.0-0"
"""The clusters the chart installs on, from the supported versions (`kubesched.apis.support`:
the default profile's DynamicResources reads resource.k8s.io/v1, served from Kubernetes
1.34); the -0 admits pre-release and vendor suffixes such as v1.34.2-eks-...."""


def _notes() -> str:
    """NOTES.txt, which tells of the default image (`DEFAULT_IMAGE`, on no registry)."""
    text = (Path(__file__).parent / "NOTES.txt").read_text()
    return text.replace("@DEFAULT_REPOSITORY@", DEFAULT_IMAGE.rsplit(":", 1)[0])
