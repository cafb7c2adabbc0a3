"""Kubernetes' own scheduling e2e specs as kubesched's guard (`make conformance`).

    python -m kubesched_conformance build                          # the test binary, cached
    python -m kubesched_conformance run                            # kubesched, both runs
    python -m kubesched_conformance run --scheduler=kube-scheduler # the same with kube-scheduler

The `test/e2e/scheduling` specs of the pinned k8s.io/kubernetes module, unchanged, are built
into one test binary from the wrapper Go module `tools/conformance` (binary.py) and run
against a local cluster (cluster.py) whose `default-scheduler` is kubesched, with no
kube-scheduler at all, or the real kube-scheduler: once with the defaults and once with the
GenericWorkload gate (its gang and workload-aware preemption specs; specs.py). Each run
writes ginkgo's report and a summary (run.py); a kubesched run is compared with the
kube-scheduler run of the same gate found in the same folder (report.regressions).
"""
