"""The chart's shadow mode: `shadow.schedulerName` runs kubesched as a shadow of another
scheduler (`kubesched run --shadow-scheduler-name`, docs/replay.md), with the objects
`kubesched manifests --shadow-scheduler-name` prints (`kubesched.manifests.shadow`):

* the ClusterRole only reads (`clusterrole-shadow.yaml` instead of `clusterrole.yaml`): every
  rule keeps its get/list/watch verbs, rules left with none are dropped, `rbac.extraRules`
  too (`kubesched.readOnlyRules`);
* no Lease Role, RoleBinding or Lease namespace, `leaderElect: false` in the config;
* one replica whatever `replicas` says;
* the container runs with `--shadow-scheduler-name=NAME` (`kubesched.args`).
"""

from __future__ import annotations

from kubesched.manifests.chart import schemas as s
from kubesched.manifests.chart.spec import Group, Leaf

SHADOW = ".Values.shadow.schedulerName"
NOT_SHADOW = f"not {SHADOW}"
REPLICAS = f"if {SHADOW} }}}}1{{{{ else }}}}{{{{ .Values.replicas }}}}{{{{ end"
"""The Deployment's replicas: one for a shadow (a `markers.value` expression)."""
READ_ONLY_EXTRA_RULES = 'include "kubesched.readOnlyRules" .Values.rbac.extraRules | fromYamlArray'


def shadow_values() -> Group:
    return Group(
        key="shadow",
        doc="Shadow mode: kubesched watches the pods of another scheduler, decides where it\n"
        'would put each one and writes nothing (docs/replay.md, "Shadow a live scheduler").',
        children=(
            Leaf(
                key="schedulerName",
                default="",
                doc="The scheduler to shadow (default-scheduler: kube-scheduler); empty:\n"
                "kubesched schedules. When set, the ClusterRole only reads, no Lease Role is\n"
                "made, leader election is off and one replica runs, whatever replicas says.",
                schema=s.optional_string(s.DNS_SUBDOMAIN, max_length=253),
            ),
        ),
    )
