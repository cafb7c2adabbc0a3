"""TeamZones: a team's pods may run only in the zones its ConfigMap lists."""

from kubesched.framework import ActionType, Code, ResourceSpec, Status, resource_event

CONFIGMAPS = ResourceSpec("", "v1", "configmaps", label_indexes=("kubesched.io/rule",))
ZONE = "topology.kubernetes.io/zone"


class TeamZones:
    """Filter: `team=<t>` pods need a node whose zone is in ConfigMap `zones-<t>`
    (label `kubesched.io/rule=team-zones`, `data.zones: "a,b"`) of their namespace."""

    name = "TeamZones"
    resources = (CONFIGMAPS,)

    def __init__(self, *, args, handle):
        self._rules = handle.lister(CONFIGMAPS)

    def events_to_register(self):
        return (resource_event(CONFIGMAPS, ActionType.ADD | ActionType.UPDATE),)

    def filter(self, state, pod, node_info):
        team = pod.labels.get("team")
        if team is None:
            return None
        rule = self._rules.get(f"zones-{team}", pod.namespace)
        if rule is None or rule.labels.get("kubesched.io/rule") != "team-zones":
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, f"no zone rule for team {team}")
        zones = str(rule.body.get("data", {}).get("zones", "")).split(",")
        if node_info.node.labels.get(ZONE) in zones:
            return None
        return Status(Code.UNSCHEDULABLE, f"node(s) outside team {team}'s zones")


def register(registry):
    """Called by `--plugin-module team_zones` (the folder on PYTHONPATH)."""
    registry.register_class(TeamZones)
