"""The committed Helm chart is exactly what the manifests model writes (`make chart`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.cli import manifests
from kubesched.manifests.chart import REGENERATE, markers

CHART = Path(__file__).parents[3] / "charts" / "kubesched"


def test_committed_chart_is_what_the_model_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert manifests.main(["--helm-chart", str(tmp_path)]) == 0
    written = capsys.readouterr().out.split()

    stale = [
        path.relative_to(tmp_path).as_posix()
        for path in map(Path, written)
        if not (CHART / path.relative_to(tmp_path)).is_file()
        or (CHART / path.relative_to(tmp_path)).read_text() != path.read_text()
    ]
    assert not stale, f"charts/kubesched differs from kubesched.manifests: run `{REGENERATE}`"


def test_markers_become_go_template_text() -> None:
    text = "\n".join(
        [
            "metadata:",
            "  name: kubesched:@NS@:@NAME@",
            f"  labels: '{markers.included('kubesched.labels')}'",
            f"replicas: '{markers.value('.Values.replicas')}'",
            "rules:",
            f"- '{markers.when('cond')}'",
            "- verbs: [delete]",
            f"- '{markers.END}'",
        ]
    )

    assert markers.to_template(text).splitlines() == [
        "metadata:",
        '  name: "kubesched:{{ .Release.Namespace }}:{{ include "kubesched.name" . }}"',
        "  labels:",
        '    {{- include "kubesched.labels" . | nindent 4 }}',
        "replicas: {{ .Values.replicas }}",
        "rules:",
        "{{- if cond }}",
        "- verbs: [delete]",
        "{{- end }}",
    ]
