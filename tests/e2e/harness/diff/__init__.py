"""Differential parity: the same seeded random cluster and pods decided by the real
kube-scheduler v1.37.2 (scores read from its `--v=10` log) and by kubesched (explain's engine
in-process, on the same API server state), compared decision by decision.

    scenario = generate(seed)                  # scenario.py: nodes, pods, workloads, steps
    report = run_scenario(scenario, env)       # runner.py: both schedulers, every step
    report.mismatches                          # compare.py: what differed, by comparison
"""
