"""JSON Schema (draft-07, what `helm` checks values against) for the chart's values: small
builders, the patterns of the names and durations kubesched reads, and the schemas of the
Kubernetes objects a value holds.

Every object the chart defines is closed (`additionalProperties: false`), so a misspelt key
(`image.tagg`) is refused. Kubernetes objects are closed at their first level, with the
field names of the v1 API (`securityContext.runAsUsr` is refused); what lies below those
fields is left to the API server, which checks it on install.
"""

from __future__ import annotations

from typing import Any

from kubesched.apis.config import EXTENSION_POINTS, WORKLOAD_EXTENSION_POINTS

Schema = dict[str, Any]

DRAFT = "http://json-schema.org/draft-07/schema#"
_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS_LABEL = f"^{_LABEL}$"
"""A DNS-1123 label (`kubesched.config.validation.is_dns_label`), at most 63 characters."""
DNS_SUBDOMAIN = f"^{_LABEL}(\\.{_LABEL})*$"
"""A DNS-1123 subdomain (`is_dns_subdomain`), at most 253: a Lease name, a schedulerName."""
GO_DURATION = "^\\+?(0|(([0-9]+\\.?[0-9]*|\\.[0-9]+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+)$"
"""A Go duration that is not negative (`kubesched.apis.durations`): 15s, 1m30s, 0.5h."""
PROMETHEUS_DURATION = (
    "^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$"
)
"""prometheus-operator's Duration (ServiceMonitor `interval`, `scrapeTimeout`): 30s, 1m."""
DIGEST = "^[a-z0-9]+([+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$"
"""An OCI content digest, e.g. sha256:<64 hex digits>."""
IMAGE_TAG = "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"
"""An OCI tag."""
PYTHON_MODULE = "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*$"


def string(
    *, pattern: str = "", enum: tuple[str, ...] = (), min_length: int = 0, max_length: int = 0
) -> Schema:
    """A string, optionally matching `pattern`, one of `enum`, or of a length."""
    schema: Schema = {"type": "string"}
    if pattern:
        schema["pattern"] = pattern
    if enum:
        schema["enum"] = list(enum)
    if min_length:
        schema["minLength"] = min_length
    if max_length:
        schema["maxLength"] = max_length
    return schema


def optional_string(pattern: str, *, max_length: int = 0) -> Schema:
    """Empty, or a string matching `pattern` (empty means: the chart's default)."""
    inner = pattern.removeprefix("^").removesuffix("$")
    return string(pattern=f"^({inner})?$", max_length=max_length)


def integer(*, minimum: int | None = None, maximum: int | None = None) -> Schema:
    schema: Schema = {"type": "integer"}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


def boolean() -> Schema:
    return {"type": "boolean"}


def nullable(schema: Schema) -> Schema:
    """`schema` or null."""
    return {**schema, "type": [schema["type"], "null"]}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


def closed(properties: dict[str, Schema], *, required: tuple[str, ...] = ()) -> Schema:
    """An object with exactly these keys (none of them required unless named)."""
    schema: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    if required:
        schema["required"] = list(required)
    return schema


def mapping(values: Schema) -> Schema:
    """An object whose keys are free (label keys, annotation keys) and values `values`."""
    return {"type": "object", "additionalProperties": values}


def fields(*names: str) -> Schema:
    """A closed object with these keys, whose values are not checked here."""
    return closed({name: {} for name in names})


def string_map() -> Schema:
    """Labels, annotations, a nodeSelector: string keys to string values."""
    return mapping(string())


_QUANTITY = {"type": ["string", "number"]}
RESOURCES = closed(
    {
        "requests": mapping(_QUANTITY),
        "limits": mapping(_QUANTITY),
        "claims": array(closed({"name": string(), "request": string()}, required=("name",))),
    }
)
TOLERATIONS = array(
    closed(
        {
            "key": string(),
            "operator": string(enum=("Exists", "Equal")),
            "value": string(),
            "effect": string(enum=("", "NoSchedule", "PreferNoSchedule", "NoExecute")),
            "tolerationSeconds": integer(),
        }
    )
)
AFFINITY = fields("nodeAffinity", "podAffinity", "podAntiAffinity")
ENV = array(
    closed({"name": string(min_length=1), "value": string(), "valueFrom": {}}, required=("name",))
)
_VOLUME_SOURCES = (
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "gitRepo",
    "glusterfs",
    "hostPath",
    "image",
    "iscsi",
    "nfs",
    "persistentVolumeClaim",
    "photonPersistentDisk",
    "portworxVolume",
    "projected",
    "quobyte",
    "rbd",
    "scaleIO",
    "secret",
    "storageos",
    "vsphereVolume",
)
VOLUMES = array(
    closed(
        {"name": string(min_length=1), **fields(*_VOLUME_SOURCES)["properties"]}, required=("name",)
    )
)
VOLUME_MOUNTS = array(
    closed(
        {
            "name": string(min_length=1),
            "mountPath": string(min_length=1),
            "readOnly": boolean(),
            "recursiveReadOnly": string(enum=("Disabled", "IfPossible", "Enabled")),
            "subPath": string(),
            "subPathExpr": string(),
            "mountPropagation": string(enum=("None", "HostToContainer", "Bidirectional")),
        },
        required=("name", "mountPath"),
    )
)
_SECCOMP = closed(
    {
        "type": string(enum=("RuntimeDefault", "Localhost", "Unconfined")),
        "localhostProfile": string(),
    }
)
_IDENTITY = {
    "runAsNonRoot": boolean(),
    "runAsUser": integer(minimum=0),
    "runAsGroup": integer(minimum=0),
    "seccompProfile": _SECCOMP,
    "appArmorProfile": {},
    "seLinuxOptions": {},
    "windowsOptions": {},
}
CONTAINER_SECURITY_CONTEXT = closed(
    {
        **_IDENTITY,
        "allowPrivilegeEscalation": boolean(),
        "capabilities": closed({"add": array(string()), "drop": array(string())}),
        "privileged": boolean(),
        "procMount": string(enum=("Default", "Unmasked")),
        "readOnlyRootFilesystem": boolean(),
    }
)
POD_SECURITY_CONTEXT = closed(
    {
        **_IDENTITY,
        "fsGroup": integer(minimum=0),
        "fsGroupChangePolicy": string(enum=("OnRootMismatch", "Always")),
        "seLinuxChangePolicy": string(enum=("Recursive", "MountOption")),
        "supplementalGroups": array(integer(minimum=0)),
        "supplementalGroupsPolicy": string(enum=("Merge", "Strict")),
        "sysctls": array(closed({"name": string(), "value": string()}, required=("name",))),
    }
)

POLICY_RULE = closed(
    {
        "apiGroups": array(string()),
        "resources": array(string(min_length=1)),
        "resourceNames": array(string(min_length=1)),
        "nonResourceURLs": array(string(min_length=1)),
        "verbs": {**array(string(min_length=1)), "minItems": 1},
    },
    required=("verbs",),
)
"""A ClusterRole's rule (rbac.authorization.k8s.io/v1 PolicyRule)."""
PROMETHEUS_RULE = closed(
    {
        "alert": string(min_length=1),
        "record": string(min_length=1),
        "expr": {"type": ["string", "number"]},
        "for": string(pattern=PROMETHEUS_DURATION),
        "keep_firing_for": string(pattern=PROMETHEUS_DURATION),
        "labels": string_map(),
        "annotations": string_map(),
    },
    required=("expr",),
)
"""A Prometheus alerting or recording rule (a PrometheusRule's `spec.groups[].rules[]`)."""

_PLUGIN_SET = closed(
    {
        "enabled": array(
            closed({"name": string(min_length=1), "weight": integer()}, required=("name",))
        ),
        "disabled": array(closed({"name": string(min_length=1)}, required=("name",))),
    }
)
PLUGINS = closed(
    dict.fromkeys(("multiPoint", *EXTENSION_POINTS, *WORKLOAD_EXTENSION_POINTS), _PLUGIN_SET)
)
"""A profile's `plugins` (KubeSchedulerConfiguration v1)."""
PLUGIN_CONFIG = array(
    closed({"name": string(min_length=1), "args": {"type": "object"}}, required=("name",))
)
SCHEDULER_NAME = string(pattern=DNS_SUBDOMAIN, max_length=253)
PERCENTAGE = integer(minimum=0, maximum=100)
PROFILES = array(
    closed(
        {
            "schedulerName": SCHEDULER_NAME,
            "percentageOfNodesToScore": PERCENTAGE,
            "plugins": PLUGINS,
            "pluginConfig": PLUGIN_CONFIG,
        },
        required=("schedulerName",),
    )
)
_EXTENDER_TLS = closed(
    dict.fromkeys(("serverName", "certFile", "keyFile", "caFile"), string())
    | dict.fromkeys(("certData", "keyData", "caData"), string(pattern=r"^[A-Za-z0-9+/=]*$"))
    | {"insecure": boolean()}
)
EXTENDERS = array(
    closed(
        {
            "urlPrefix": string(pattern=r"^https?://", min_length=1),
            **dict.fromkeys(("filterVerb", "preemptVerb", "prioritizeVerb", "bindVerb"), string()),
            "weight": integer(),
            "enableHTTPS": boolean(),
            "tlsConfig": _EXTENDER_TLS,
            "httpTimeout": string(pattern=GO_DURATION),
            "nodeCacheCapable": boolean(),
            "managedResources": array(
                closed(
                    {"name": string(min_length=1), "ignoredByScheduler": boolean()},
                    required=("name",),
                )
            ),
            "ignorable": boolean(),
        },
        required=("urlPrefix",),
    )
)
"""The config's `extenders` (KubeSchedulerConfiguration v1 `Extender`)."""
CONFIG = closed(
    {
        "parallelism": integer(minimum=1),
        "percentageOfNodesToScore": PERCENTAGE,
        "podInitialBackoffSeconds": integer(minimum=1),
        "podMaxBackoffSeconds": integer(minimum=1),
        "delayCacheUntilActive": boolean(),
        "enableProfiling": boolean(),
        "enableContentionProfiling": boolean(),
        "extenders": EXTENDERS,
        "clientConnection": closed(
            {
                "kubeconfig": string(),
                "acceptContentTypes": string(),
                "contentType": string(),
                "qps": {"type": "number", "minimum": 0},
                "burst": integer(minimum=0),
            }
        ),
    }
)
"""The KubeSchedulerConfiguration fields besides profiles and leader election (`extenders`
included: kubesched calls them as kube-scheduler does)."""
