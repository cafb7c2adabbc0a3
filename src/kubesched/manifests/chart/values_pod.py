"""The chart's values for the pods and their container: annotations, labels, security
contexts, extra volumes and environment, resources and placement (see `values`)."""

from __future__ import annotations

from kubesched.manifests import workload
from kubesched.manifests.chart import schemas as s
from kubesched.manifests.chart.spec import Leaf
from kubesched.manifests.options import ManifestOptions


def pod_values() -> tuple[Leaf, ...]:
    return (
        Leaf(
            key="podAnnotations",
            default={},
            doc="More annotations of the pods (the config hash annotation stays).",
            schema=s.string_map(),
        ),
        Leaf(
            key="podLabels",
            default={},
            doc="More labels of the pods (the chart's own labels win over these).",
            schema=s.string_map(),
        ),
        Leaf(
            key="podSecurityContext",
            default=workload.pod_security_context(),
            doc="The pods' securityContext (Pod Security restricted); a key set here\n"
            "replaces the default's, a key set to null removes it.",
            schema=s.POD_SECURITY_CONTEXT,
        ),
        Leaf(
            key="extraVolumes",
            default=[],
            doc="More volumes of the pods.",
            schema=s.VOLUMES,
        ),
    )


def container_values(options: ManifestOptions) -> tuple[Leaf, ...]:
    return (
        Leaf(
            key="securityContext",
            default=workload.container_security_context(),
            doc="The container's securityContext (non-root, read-only root filesystem, every\n"
            "capability dropped); a key set here replaces the default's.",
            schema=s.CONTAINER_SECURITY_CONTEXT,
        ),
        Leaf(
            key="extraEnv",
            default=[],
            doc="More environment variables of the container (after POD_NAMESPACE).",
            schema=s.ENV,
        ),
        Leaf(
            key="extraVolumeMounts",
            default=[],
            doc="More volume mounts of the container (of extraVolumes).",
            schema=s.VOLUME_MOUNTS,
        ),
        Leaf(
            key="resources",
            default=options.resources,
            doc="The container's resources; no CPU limit: throttling stalls Lease renewals.",
            schema=s.RESOURCES,
        ),
    )


def placement_values(options: ManifestOptions) -> tuple[Leaf, ...]:
    return (
        Leaf(
            key="priorityClassName",
            default=options.priority_class_name,
            doc="The pods' priority class, e.g. system-cluster-critical.",
            schema=s.string(),
        ),
        Leaf(
            key="nodeSelector",
            default=options.node_selector,
            doc="The pods' nodeSelector.",
            schema=s.string_map(),
        ),
        Leaf(
            key="tolerations",
            default=list(options.tolerations),
            doc="The pods' tolerations (e.g. to run on control-plane nodes).",
            schema=s.TOLERATIONS,
        ),
        Leaf(
            key="affinity",
            default=options.affinity or {},
            doc="The pods' affinity; empty: prefer one replica per node.",
            schema=s.AFFINITY,
        ),
    )
