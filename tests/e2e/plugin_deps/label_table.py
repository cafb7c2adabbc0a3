"""LabelTable: a Filter plugin that needs a third-party distribution (tabulate), for
tests/e2e/test_image_plugin_deps.py. It passes the nodes carrying the label `key` and
rejects the others with a reason tabulate formats; `tabulate_version` is in the reason too,
so the test sees which tabulate the image runs."""

from collections.abc import Mapping
from typing import Any

import tabulate  # type: ignore[import-untyped]  # the dependency the image must hold

from kubesched.framework import Code, CycleState, Handle, NodeInfo, Registry, Status
from kubesched.model import Pod


class LabelTable:
    name = "LabelTable"

    def __init__(self, *, args: Mapping[str, Any], handle: Handle) -> None:
        del handle
        self.key = str(args["key"])
        table = tabulate.tabulate([[self.key, tabulate.__version__]], tablefmt="plain")
        self._rejection = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, " ".join(table.split()))

    def filter(self, _state: CycleState, _pod: Pod, node_info: NodeInfo) -> Status | None:
        return None if self.key in node_info.node.labels else self._rejection


def register(registry: Registry) -> None:
    registry.register_class(LabelTable)
