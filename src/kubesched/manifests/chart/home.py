"""Where the project lives, in one place: the chart's `home`, `sources` and `icon`
(Chart.yaml) and the base of the runbook links of its alerts (docs/operations.md).

`REPOSITORY` is the address the chart gives the project. The project is not published yet
(pyproject.toml names no home), so it is the intended address, not one that answers today:
change it here (and run `make chart`) to publish elsewhere. `prometheusRule.runbookUrl` points
the alerts at another copy of the runbooks (an internal wiki, a fork).
"""

from __future__ import annotations

REPOSITORY = "https://github.com/kubesched/kubesched"
BRANCH = "main"
RUNBOOKS = f"{REPOSITORY}/blob/{BRANCH}/docs/operations.md"
"""The page holding one section per alert; an alert links to `RUNBOOKS#<alert name, lowercase>`."""
ICON = f"{REPOSITORY}/raw/{BRANCH}/charts/kubesched/icon.svg"
"""The committed charts/kubesched/icon.svg, as the repository serves it."""
