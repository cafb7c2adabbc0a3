"""The chart's hooks: the configuration checked before any rollout, and `helm test`.

config-check (pre-install, pre-upgrade): hooks run before the release's objects are created
or changed, so the check reads the configuration the release would install from a ConfigMap
of its own (`<name>-config-check`, weight -5), and a Job (weight 0) runs the image's kubesched
with the Deployment's arguments plus `--write-config-to=-`. As kube-scheduler's
`--write-config-to`, kubesched then builds every profile's plugins offline and exits 1 with
one line on an unknown plugin, bad plugin args or a `--plugin-module` that does not import
(its volumes and environment are the Deployment's, so plugins mounted from a ConfigMap are
found). The Job fails at once (`backoffLimit: 0`), helm install or upgrade fails with it, and
no object of the release is touched: the running replicas keep their config. The Job stays
after a failure for `kubectl logs job/<name>-config-check` (its message is the pod's
termination message too) until the next install or upgrade, or a day
(`ttlSecondsAfterFinished`); after a success helm deletes both.

test (`helm test`): one pod per profile whose `schedulerName` is that profile's, running
`kubesched --version` from the image. It can only end Succeeded once kubesched has bound it:
the test proves that the installed scheduler leads, may bind and serves every profile.

Their pods carry labels of their own (`kubesched.hookLabels`): the scheduler's selector would
count them in the PodDisruptionBudget and the Service.
"""

from __future__ import annotations

import copy
from typing import Any

from kubesched.manifests import workload
from kubesched.manifests.chart import markers
from kubesched.manifests.chart.objects import HEADER, TOKEN_NAMES, Source, deployment_object
from kubesched.manifests.render import NO_WRAP, to_yaml

CHECK = "config-check"
CHECK_NAME = f"@NAME@-{CHECK}"
ENABLED = ".Values.configCheck.enabled"
CHECK_SECONDS = 300
"""How long the check may run (image pull included) before its Job fails."""
FAILED_JOB_SECONDS = 86400
"""How long a failed check's Job stays for its log."""
TEST_RESOURCES = {"requests": {"cpu": "10m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}}
_HOOK = "helm.sh/hook"
_WEIGHT = "helm.sh/hook-weight"
_DELETE = "helm.sh/hook-delete-policy"
_PROBES = ("ports", "startupProbe", "livenessProbe", "readinessProbe")
_SCHEDULER_ONLY = ("serviceAccountName", "affinity", "terminationGracePeriodSeconds")


def _hook_meta(name: str, labels: str, annotations: dict[str, str]) -> dict[str, Any]:
    return {
        "name": name,
        "namespace": TOKEN_NAMES.namespace,
        "labels": markers.included(labels),
        "annotations": annotations,
    }


def _check_config_map() -> dict[str, Any]:
    """The configuration the release would install, for the check alone: deleted after the
    check whatever its outcome."""
    annotations = {
        _HOOK: "pre-install,pre-upgrade",
        _WEIGHT: "-5",
        _DELETE: "before-hook-creation,hook-succeeded,hook-failed",
    }
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _hook_meta(CHECK_NAME, "kubesched.checkLabels", annotations),
        "data": {workload.CONFIG_KEY: markers.text('include "kubesched.config" .')},
    }


def _hook_pod(source: Source, *, labels: str) -> dict[str, Any]:
    """The Deployment's pod template (image, placement, security, volumes, environment)
    without what only a serving scheduler needs (its account, probes, ports, spreading)."""
    template: dict[str, Any] = copy.deepcopy(deployment_object(source)["spec"]["template"])
    template["metadata"] = {"labels": markers.included(labels)}
    pod = template["spec"]
    for key in _SCHEDULER_ONLY:
        pod.pop(key)
    pod["automountServiceAccountToken"] = False
    pod["restartPolicy"] = "Never"
    container = pod["containers"][0]
    for key in _PROBES:
        container.pop(key)
    container["terminationMessagePolicy"] = "FallbackToLogsOnError"
    return template


def _check_job(source: Source) -> dict[str, Any]:
    template = _hook_pod(source, labels="kubesched.checkLabels")
    pod = template["spec"]
    pod["volumes"][0]["configMap"]["name"] = CHECK_NAME
    container = pod["containers"][0]
    container["name"] = CHECK
    container["args"] = markers.included("kubesched.checkArgs")
    annotations = {
        _HOOK: "pre-install,pre-upgrade",
        _WEIGHT: "0",
        _DELETE: "before-hook-creation,hook-succeeded",
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _hook_meta(CHECK_NAME, "kubesched.checkLabels", annotations),
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": CHECK_SECONDS,
            "ttlSecondsAfterFinished": FAILED_JOB_SECONDS,
            "template": template,
        },
    }


def _test_pod(source: Source) -> dict[str, Any]:
    """`helm test`: a pod for the profile `$profile` (the `range` of `TEST_RANGE`)."""
    template = _hook_pod(source, labels="kubesched.testLabels")
    pod = template["spec"]
    pod["schedulerName"] = markers.value("$profile.schedulerName | quote")
    pod.pop("priorityClassName", None)
    container = pod["containers"][0]
    container["name"] = "scheduled"
    container["args"] = ["--version"]
    container["resources"] = TEST_RESOURCES
    for key in ("env", "volumeMounts"):
        container.pop(key)
    pod.pop("volumes")
    annotations = {_HOOK: "test", _DELETE: "before-hook-creation,hook-succeeded"}
    metadata = _hook_meta("@NAME@-test-@@INDEX@@", "kubesched.testLabels", annotations)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": pod}


TEST_RANGE = (
    "{{- $top := . }}\n"
    '{{- range $index, $profile := include "kubesched.profiles" . | fromYamlArray }}\n'
    "{{- with $top }}\n"
)


def templates(source: Source) -> dict[str, str]:
    """File name under `templates/` -> its text."""
    check = "".join(_document(obj) for obj in (_check_config_map(), _check_job(source)))
    test = _document(_test_pod(source)).replace("@@INDEX@@", "{{ $index }}")
    return {
        f"{CHECK}.yaml": f"{HEADER}{{{{- if {ENABLED} }}}}\n{check}{{{{- end }}}}\n",
        "tests/scheduling.yaml": f"{HEADER}{TEST_RANGE}{test}{{{{- end }}}}\n{{{{- end }}}}\n",
    }


def _document(obj: dict[str, Any]) -> str:
    return "---\n" + markers.to_template(to_yaml([obj], width=NO_WRAP).removeprefix("---\n"))
