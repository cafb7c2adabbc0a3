"""The many-core model on hand-computed figures, and kube-scheduler's loop timings read
from a /metrics page."""

from __future__ import annotations

import pytest

from kubesched.bench import many_core
from kubesched.bench.runner import ContenderResult
from kubesched.bench.scheduler_metrics import difference, loop_seconds

PLANE = {"kube-apiserver": 3.0, "etcd": 0.6, "bench client": 0.3}
"""CPU seconds of the other processes over 1000 pods: 3.9 ms a pod."""
LOOP = {"cycles": 1000, "algorithm": 1.5, "filter": 0.8, "score": 0.3, "reserve": 0.05}
LOOP |= {"permit": 0.05}


def result(name: str, cpu: float, **fields: object) -> ContenderResult:
    run = ContenderResult(name=name, cpu_seconds=cpu, bound=1000, control_plane_cpu=PLANE)
    for key, value in fields.items():
        setattr(run, key, value)
    return run


def test_kubesched_is_bound_by_its_scheduling_thread() -> None:
    split = many_core.split_for(result("kubesched", 1.25, main_thread_cpu_seconds=1.2), 2)
    assert isinstance(split, many_core.CpuSplit)
    assert split.serial_ms == pytest.approx(1.2)
    assert split.parallel_ms == pytest.approx(0.05)
    assert split.system_ms == pytest.approx(5.15)
    # 8 cores: the system allows 8000 / 5.15 = 1553 pods/s, the thread 1000 / 1.2 = 833.
    assert [split.rate(c) for c in many_core.CORES] == pytest.approx([1000 / 1.2] * 3)


def test_the_null_binder_is_all_serial() -> None:
    split = many_core.split_for(result("null-binder", 0.5), 2)
    assert isinstance(split, many_core.CpuSplit)
    assert (split.serial_ms, split.parallel_ms) == pytest.approx((0.5, 0.0))
    # 8 cores: min(8000 / 4.4 = 1818, 1000 / 0.5 = 2000); 16 and 32: the thread's 2000.
    assert [split.rate(c) for c in many_core.CORES] == pytest.approx([8000 / 4.4, 2000, 2000])


def test_kube_scheduler_spreads_filter_and_score_over_sixteen_workers() -> None:
    split = many_core.split_for(result("kube-scheduler", 2.5, scheduler_loop=LOOP), 2)
    assert isinstance(split, many_core.CpuSplit)
    # Serial: 1.5 - 0.8 - 0.3 + 0.05 + 0.05 = 0.5 ms; on the path: min(2 x 1.1, 2.0) = 2.0.
    assert split.serial_ms == pytest.approx(0.5)
    assert split.parallel_ms == pytest.approx(2.0)
    assert split.on_path_ms == pytest.approx(2.0)
    assert split.system_ms == pytest.approx(6.4)
    # 8: min(8000 / 6.4 = 1250, 1000 / (0.5 + 2 / 8) = 1333); 16 and 32: 1000 / 0.625 = 1600.
    assert [split.rate(c) for c in many_core.CORES] == pytest.approx([1250, 1600, 1600])


def test_ratios_and_the_json_of_each_contender() -> None:
    runs = [
        result("kubesched", 1.25, main_thread_cpu_seconds=1.2),
        result("kube-scheduler", 2.5, scheduler_loop=LOOP),
    ]
    versus = many_core.ratios(runs, 2)
    assert versus == pytest.approx(
        {"8": 833.333 / 1250, "16": 833.333 / 1600, "32": 0.5208}, rel=1e-3
    )
    raw = many_core.split_json(runs[1], 2)
    assert raw["workers"] == 16
    assert raw["pods_per_second"] == pytest.approx({"8": 1250, "16": 1600, "32": 1600})
    lines = many_core.table([("SchedulingBasic", runs, 2)])
    assert lines[2] == "| SchedulingBasic | kubesched | 1.20 | 0.05 | 5.15 | 833 / 833 / 833 |"
    assert (
        lines[3] == "| SchedulingBasic | kube-scheduler | 0.50 | 2.00 | 6.40 | 1250 / 1600 / 1600 |"
    )
    assert lines[4].endswith("| 0.67x / 0.52x / 0.52x |")


def test_a_run_without_figures_says_why() -> None:
    unread = result("kube-scheduler", 2.5, scheduler_metrics_problem="GET /metrics answered 403")
    assert many_core.split_json(unread, 2) == {"problem": "GET /metrics answered 403"}
    assert many_core.split_json(result("kubesched", 1.0, failure="stalled"), 2) == {
        "problem": "no run"
    }
    assert many_core.ratios([unread, result("kubesched", 1.0)], 2) == {}
    lines = many_core.table([("case", [unread], 2)])
    assert lines[-1] == "| case | kube-scheduler | - | - | - | GET /metrics answered 403 |"


def test_a_loop_cheaper_than_its_filter_and_score_counts_no_serial_time() -> None:
    loop = {"algorithm": 0.5, "filter": 0.8, "score": 0.3}
    split = many_core.go_scheduler(cpu_ms=1.0, system_ms=4.0, loop_ms=loop, cpus=2)
    assert (split.serial_ms, split.parallel_ms, split.on_path_ms) == (0.0, 1.0, 1.0)
    # 32 cores: the system's 8000 pods/s, the path 1000 / (1.0 / 16) = 16000.
    assert split.rate(32) == pytest.approx(8000)


POINT = "scheduler_framework_extension_point_duration_seconds"


def point(kind: str, extension_point: str, value: float, *, profile: str = "bench") -> str:
    """One sample line of the extension-point histogram."""
    labels = f'extension_point="{extension_point}",profile="{profile}",status="Success"'
    return f"{POINT}_{kind}{{{labels}}} {value}"


PAGE = "\n".join(
    [
        "# TYPE scheduler_scheduling_algorithm_duration_seconds histogram",
        'scheduler_scheduling_algorithm_duration_seconds_bucket{le="+Inf"} 40',
        "scheduler_scheduling_algorithm_duration_seconds_sum 0.9",
        "scheduler_scheduling_algorithm_duration_seconds_count 40",
        f"# TYPE {POINT} histogram",
        point("sum", "Filter", 0.4),
        point("sum", "Filter", 0.1).replace("Success", "Unschedulable"),
        point("count", "Filter", 30),
        point("sum", "Score", 0.2),
        point("sum", "Reserve", 0.01),
        point("sum", "Filter", 7, profile="default-scheduler"),
        point("sum", "Bind", 3),
        "",
    ]
)


def test_the_loop_timings_of_one_profile_from_a_metrics_page() -> None:
    after = loop_seconds(PAGE, "bench")
    assert after == pytest.approx(
        {"cycles": 40, "algorithm": 0.9, "filter": 0.5, "score": 0.2, "reserve": 0.01, "permit": 0}
    )
    before = dict.fromkeys(after, 0.0) | {"cycles": 10, "filter": 0.1}
    assert difference(after, before)["cycles"] == 30
    assert difference(after, before)["filter"] == pytest.approx(0.4)
