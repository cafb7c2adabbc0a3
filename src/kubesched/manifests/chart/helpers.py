"""`templates/_helpers.tpl`: the named templates the chart's objects include.

`helpers.tpl` beside this file holds them; each is the Go template form of a rule of the
manifests model, named where it is defined: the object names (`options.Names`), the labels
(`meta.labels`, with Helm's conventions: the instance is the release), the completed
configuration (`kubesched.config`), the container's arguments (`workload.container_args`),
whether a profile preempts (`preemption.profile_preempts`, which decides two RBAC rules) and
the refusals of `options._check` and `config.validation.default_scheduler_conflicts`. What
the model knows as data is put in here (`FIXED_ARGS`, `SPREAD_AFFINITY`,
`BUILT_IN_NAMESPACES`, the label values, the config hash annotation, the metrics reader's
token Secret); the chart's tests render the helpers with helm against the model for several
values.
"""

from __future__ import annotations

from pathlib import Path

from kubesched.manifests import workload
from kubesched.manifests.meta import APP_NAME, COMPONENT
from kubesched.manifests.options import BUILT_IN_NAMESPACES

SOURCE = Path(__file__).parent / "helpers.tpl"
FIXED_ARGS = (
    f"--config={workload.CONFIG_DIR}/{workload.CONFIG_KEY}",
    f"--cert-dir={workload.CERT_DIR}",
)


def helpers_tpl(spread: str, *, token_suffix: str) -> str:
    """The text of `_helpers.tpl`; `spread` is the default affinity's template text,
    `token_suffix` what follows the name in the metrics reader's token Secret."""
    return (
        SOURCE.read_text(encoding="utf-8")
        .replace("FIXED_ARGS", "\n".join(f"- {arg}" for arg in FIXED_ARGS))
        .replace("APP_NAME", APP_NAME)
        .replace("COMPONENT", COMPONENT)
        .replace("CONFIG_HASH_ANNOTATION", workload.CONFIG_HASH_ANNOTATION)
        .replace("METRICS_TOKEN_SUFFIX", token_suffix)
        .replace("SPREAD_AFFINITY", spread.rstrip("\n"))
        .replace(
            "BUILT_IN_NAMESPACES", " ".join(f'"{name}"' for name in sorted(BUILT_IN_NAMESPACES))
        )
    )
