"""The CPU of kubesched's scheduling cycle alone, in process: `python -m kubesched_cyclecost`.

Builds a SchedulerCache of `--nodes` benchmark nodes (`bench.templates.node_default`) with
`--initial-pods` pods bound at random, then schedules `--pods` pods of a scheduler_perf
template with the default profile, as the scheduler's loop does: refresh the snapshot,
`schedule_pod`, assume the pod on the chosen node. No API server, no binding, no informers:
what it prints is the cycle's own cost, which `kubesched bench` cannot separate from the
rest of the process. The first quarter of the pods warms the memo and is not measured.
`--placements FILE` writes the chosen node of every pod, one a line (ties are broken by a
fixed seed; "-" for a pod that fits nowhere), so that two versions of the code can be
compared for the same placements.
"""
