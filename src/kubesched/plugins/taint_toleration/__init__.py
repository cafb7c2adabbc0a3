"""Filter and Score on node taints and pod tolerations (upstream `tainttoleration`)."""

from kubesched.plugins.taint_toleration.plugin import TaintToleration

__all__ = ["TaintToleration"]
