"""Where the project lives, in one place: the chart's `home`, `sources` and `icon`
(Chart.yaml) and the base of the runbook links of its alerts (docs/operations.md).

The project publishes from one repository; change `REPOSITORY` (and run `make chart`) to
publish it elsewhere. `prometheusRule.runbookUrl` points the alerts at another copy of the
runbooks (an internal wiki, a fork).
"""

from __future__ import annotations

REPOSITORY = "https://github.com/kubesched/kubesched"
BRANCH = "main"
RUNBOOKS = f"{REPOSITORY}/blob/{BRANCH}/docs/operations.md"
"""The page holding one section per alert; an alert links to `RUNBOOKS#<alert name, lowercase>`."""
ICON = f"{REPOSITORY}/raw/{BRANCH}/charts/kubesched/icon.svg"
"""The committed charts/kubesched/icon.svg, as the repository serves it."""
