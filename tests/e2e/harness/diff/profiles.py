"""The profiles both schedulers run in the differential test: the default one and
non-default ones (scoring strategies, plugin args, weights, sampling).

kube-scheduler serves them under `parity-*`; the kubesched process under `twin-*` (the same
profile, another schedulerName, so each pod has exactly one scheduler).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

GPU = "example.com/gpu"
ZONE = "topology.kubernetes.io/zone"

_FIT_MOST = {
    "scoringStrategy": {
        "type": "MostAllocated",
        "resources": [
            {"name": "cpu", "weight": 2},
            {"name": "memory", "weight": 1},
            {"name": GPU, "weight": 3},
        ],
    }
}
_FIT_RTC = {
    "scoringStrategy": {
        "type": "RequestedToCapacityRatio",
        "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        "requestedToCapacityRatio": {
            "shape": [
                {"utilization": 0, "score": 2},
                {"utilization": 60, "score": 9},
                {"utilization": 100, "score": 4},
            ]
        },
    }
}

PROFILES: dict[str, dict[str, Any]] = {
    "default": {"percentageOfNodesToScore": 100},
    "sampled": {},  # the adaptive percentage: kube-scheduler samples clusters over 100 nodes
    "most": {
        "percentageOfNodesToScore": 100,
        "pluginConfig": [{"name": "NodeResourcesFit", "args": _FIT_MOST}],
    },
    "rtc": {
        "percentageOfNodesToScore": 100,
        "pluginConfig": [{"name": "NodeResourcesFit", "args": _FIT_RTC}],
    },
    "affinity": {
        "percentageOfNodesToScore": 100,
        "plugins": {"score": {"enabled": [{"name": "ImageLocality", "weight": 4}]}},
        "pluginConfig": [
            {"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 7}},
            {
                "name": "NodeResourcesBalancedAllocation",
                "args": {"resources": [{"name": "cpu"}, {"name": "memory"}, {"name": GPU}]},
            },
        ],
    },
    "listspread": {
        "percentageOfNodesToScore": 100,
        "pluginConfig": [
            {
                "name": "PodTopologySpread",
                "args": {
                    "defaultingType": "List",
                    "defaultConstraints": [
                        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"}
                    ],
                },
            }
        ],
    },
}
ORACLE_PREFIX = "parity-"
TWIN_PREFIX = "twin-"


def profile_list(prefix: str) -> list[dict[str, Any]]:
    """Every profile, named `<prefix><key>`."""
    return [{"schedulerName": prefix + key, **body} for key, body in PROFILES.items()]


def write_config(path: Path, *, kubeconfig: Path, prefix: str) -> Path:
    """A KubeSchedulerConfiguration with every profile (leader election off)."""
    config = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig), "qps": 500, "burst": 1000},
        "leaderElection": {"leaderElect": False},
        "profiles": profile_list(prefix),
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path
