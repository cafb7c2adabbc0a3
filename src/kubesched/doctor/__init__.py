"""`kubesched doctor`: why are pods Pending, and can kubesched work here?

One small check per module, each returning a `CheckResult` (ok / warn / fail, one line of
detail, the fix). Doctor reads the cluster and writes nothing but access reviews. It never
imports the scheduling core (an import-linter contract).

    results = await run_checks(api, Target(scheduler_names=("my-scheduler",),
                                           lease_namespace="ns", lease_name="my-scheduler"))
    print(table(results, target)); sys.exit(exit_code(results))
"""

from kubesched.doctor.inventory import (
    LeaseState,
    SchedulerLease,
    list_scheduler_leases,
    served_by_live,
)
from kubesched.doctor.render import as_json, table
from kubesched.doctor.result import CheckResult, CheckStatus
from kubesched.doctor.runner import CHECKS, exit_code, run_checks
from kubesched.doctor.target import ServiceAccount, Target

__all__ = [
    "CHECKS",
    "CheckResult",
    "CheckStatus",
    "LeaseState",
    "SchedulerLease",
    "ServiceAccount",
    "Target",
    "as_json",
    "exit_code",
    "list_scheduler_leases",
    "run_checks",
    "served_by_live",
    "table",
]
