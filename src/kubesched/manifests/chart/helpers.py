"""`templates/_helpers.tpl`: the named templates the chart's objects include.

`helpers.tpl` beside this file holds them; each is the Go template form of a rule of the
manifests model, named where it is defined: the object names (`options.Names`), the labels
(`meta.labels`, with Helm's conventions: the instance is the release), the completed
configuration (`kubesched.config`), the container's arguments (`workload.container_args`),
whether a profile preempts (`preemption.profile_preempts`, which decides two RBAC rules) and
the refusals of `options._check` and `config.validation.default_scheduler_conflicts`, and
what decides the ClusterRole's rules: whether a profile runs a volume plugin
(`preemption.volumes_enabled`), the plugins the profiles instantiate
(`framework.resources.enabled_plugin_names`) and the `GenericWorkload` feature gate among the
container's arguments (`config.flags.feature_gates`). What the model knows as data is put in
here (`FIXED_ARGS`, `SPREAD_AFFINITY`, `BUILT_IN_NAMESPACES`, the default plugins, the
extension points, the label values, the config hash annotation, the metrics reader's token
Secret); the chart's tests render the helpers with helm against the model for several
values.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from kubesched.apis import names
from kubesched.apis.config import EXTENSION_POINTS
from kubesched.apis.defaults import DEFAULT_MULTI_POINT, GENERIC_WORKLOAD_MULTI_POINT
from kubesched.config.flags import COMPOSITE_POD_GROUP, GENERIC_WORKLOAD, TRUE_SPELLINGS
from kubesched.manifests import workload
from kubesched.manifests.meta import APP_NAME, COMPONENT
from kubesched.manifests.options import BUILT_IN_NAMESPACES
from kubesched.manifests.preemption import VOLUME_PLUGINS
from kubesched.manifests.shadow import READ_VERBS, SHADOW_FLAG

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
        .replace("SHADOW_FLAG", SHADOW_FLAG)
        .replace("READ_VERBS", _words(READ_VERBS))
        .replace("APP_NAME", APP_NAME)
        .replace("COMPONENT", COMPONENT)
        .replace("CONFIG_HASH_ANNOTATION", workload.CONFIG_HASH_ANNOTATION)
        .replace("METRICS_TOKEN_SUFFIX", token_suffix)
        .replace("SPREAD_AFFINITY", spread.rstrip("\n"))
        .replace("BUILT_IN_NAMESPACES", _words(sorted(BUILT_IN_NAMESPACES)))
        .replace("QUOTA_PREEMPTION_PLUGIN", names.CAPACITY_SCHEDULING)
        .replace("PREEMPTION_PLUGIN", names.DEFAULT_PREEMPTION)
        .replace("VOLUME_PLUGINS", _words(VOLUME_PLUGINS))
        .replace("GENERIC_WORKLOAD_GATE", GENERIC_WORKLOAD)
        .replace("COMPOSITE_POD_GROUP_GATE", COMPOSITE_POD_GROUP)
        .replace("TRUE_VALUES", _words(sorted(TRUE_SPELLINGS)))
        .replace(
            "GENERIC_WORKLOAD_PLUGINS", _words(ref.name for ref in GENERIC_WORKLOAD_MULTI_POINT)
        )
        .replace("DEFAULT_PLUGINS", _words(ref.name for ref in DEFAULT_MULTI_POINT))
        .replace("EXTENSION_POINTS", _words(EXTENSION_POINTS))
    )


def _words(items: Iterable[str]) -> str:
    """Go template string literals, space-separated (the arguments of `list`)."""
    return " ".join(f'"{item}"' for item in items)
