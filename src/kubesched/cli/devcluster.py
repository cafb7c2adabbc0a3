"""`kubesched dev-cluster`: build and run a real local control plane.

    kubesched dev-cluster build     build the control-plane binaries and kwok (once; --helm: helm,
                                    --promtool: promtool, --scheduler-plugins: scheduler-plugins'
                                    scheduler and controller)
    kubesched dev-cluster up        start etcd + kube-apiserver + kube-scheduler in the background
                                    (--controller-manager, --kwok: the whole local cluster;
                                    --feature-gates=A=true,B=false: gates of every component,
                                    e.g. GenericWorkload=true: native gang scheduling,
                                    GenericWorkload=true,TopologyAwareWorkloadScheduling=true:
                                    topology-aware gangs;
                                    --dra: the whole local cluster plus the example DRA driver
                                    gpu.example.com on two kwok GPU nodes; --scheduler-plugins:
                                    scheduler-plugins' scheduler, profile
                                    scheduler-plugins-scheduler, its controller and CRDs)
    kubesched dev-cluster env       print `export KUBECONFIG=...` (for eval "$(...)")
    kubesched dev-cluster status    show the background cluster's processes and health
    kubesched dev-cluster down      stop it and delete its files
    kubesched dev-cluster demo      run the demo of `make demo` in the foreground
    kubesched dev-cluster dra-driver  the example DRA driver's claim preparation, in the
                                    foreground (`up --dra` runs it in the background)

Every error is one line on stderr (plus a log tail when there is one) and exit code 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from kubesched.localcluster import (
    LocalCluster,
    LocalClusterError,
    devstate,
    dra_driver,
    ensure_binaries,
    ensure_helm,
    ensure_promtool,
    gates,
)
from kubesched.localcluster import demo as demo_steps
from kubesched.localcluster import scheduler_plugins as splugins
from kubesched.localcluster.binaries import ensure_scheduler_plugins, version_of
from kubesched.localcluster.kwok import NODE_LABEL
from kubesched.localcluster.launch import log_has
from kubesched.localcluster.probe import Endpoint, get, wait_until

PROG = "kubesched dev-cluster"


def main(argv: list[str]) -> int:
    """Run one dev-cluster subcommand; 0 on success, 1 on a reported error."""
    args = _parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except LocalClusterError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        if error.details:
            print(error.details, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Build and run a local control plane.")
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")
    build = commands.add_parser("build", help="build the binaries once and print their paths")
    build.add_argument(
        "--helm", action="store_true", help="also build helm (the Helm chart's tests use it)"
    )
    build.add_argument(
        "--promtool",
        action="store_true",
        help="also build promtool (the tests of the chart's PrometheusRule use it)",
    )
    build.add_argument(
        "--scheduler-plugins",
        action="store_true",
        help="also build scheduler-plugins' scheduler and controller (the second oracle)",
    )
    build.set_defaults(handler=_build)
    up = commands.add_parser("up", help="start a cluster with kube-scheduler in the background")
    up.add_argument("--no-scheduler", action="store_true", help="do not start kube-scheduler")
    up.add_argument(
        "--controller-manager",
        action="store_true",
        help="also start kube-controller-manager (workload, namespace, GC, PV binding and "
        "node lifecycle controllers)",
    )
    up.add_argument(
        "--kwok",
        action="store_true",
        help=f"also start kwok, the fake kubelets of the nodes labelled {'='.join(NODE_LABEL)}",
    )
    up.add_argument(
        "--apiserver-arg",
        action="append",
        default=[],
        metavar="--NAME=VALUE",
        help="extra kube-apiserver flag (repeatable)",
    )
    up.add_argument(
        "--feature-gates",
        default="",
        metavar="A=true,B=false",
        help="feature gates of kube-apiserver, kube-scheduler and kube-controller-manager alike "
        "(each checks them first), with the API versions they need served: "
        "GenericWorkload=true for kube-scheduler v1.37's native gang scheduling "
        "(scheduling.k8s.io/v1beta1 PodGroups), "
        f"{gates.TOPOLOGY_GATES} for topology-aware gangs, CompositePodGroup=true on top "
        "for groups of groups (scheduling.k8s.io/v1alpha3); start kubesched with the same",
    )
    up.add_argument(
        "--dra",
        action="store_true",
        help="dynamic resource allocation: also start kube-controller-manager and kwok, create "
        f"the kwok nodes {', '.join(dra_driver.EXAMPLE_NODES)}, publish the example driver's "
        "DeviceClass gpu.example.com and each node's ResourceSlices, and run the driver "
        "(it prepares allocated claims)",
    )
    up.add_argument(
        "--scheduler-plugins",
        action="store_true",
        help="also install scheduler-plugins' PodGroup and ElasticQuota CRDs and run its "
        f"controller and scheduler (profile {splugins.SCHEDULER}: "
        f"{', '.join(splugins.DEFAULT_PLUGINS)})",
    )
    up.set_defaults(handler=_up)
    commands.add_parser("env", help="print the export line for KUBECONFIG").set_defaults(
        handler=_env
    )
    commands.add_parser("status", help="show the background cluster").set_defaults(handler=_status)
    commands.add_parser("down", help="stop the background cluster").set_defaults(handler=_down)
    demo = commands.add_parser("demo", help="run the demo in the foreground, then stop")
    demo.add_argument("--hold", action="store_true", help="keep the cluster up until Ctrl-C")
    demo.set_defaults(handler=_demo)
    driver = commands.add_parser(
        "dra-driver", help="run the example DRA driver's claim preparation in the foreground"
    )
    driver.add_argument(
        "--kubeconfig", default="", help="the cluster (default: KUBECONFIG, ~/.kube/config)"
    )
    driver.add_argument(
        "--binding",
        choices=("attach", "fail", "wait"),
        default="attach",
        help="what becomes of binding conditions: set True (attach), the failure condition set "
        "True (fail), or left unset (wait)",
    )
    driver.set_defaults(handler=_dra_driver)
    return parser


def _build(args: argparse.Namespace) -> int:
    binaries = ensure_binaries()
    versions = binaries.versions()
    paths = binaries.as_dict()
    if args.helm:
        paths["helm"] = ensure_helm()
        versions["helm"] = version_of("helm", paths["helm"])
    if args.promtool:
        paths["promtool"] = ensure_promtool()
        versions["promtool"] = version_of("promtool", paths["promtool"])
    if args.scheduler_plugins:
        plugins = ensure_scheduler_plugins()
        for name, path in (
            (splugins.SCHEDULER, plugins.scheduler),
            (splugins.CONTROLLER, plugins.controller),
        ):
            paths[name] = path
            versions[name] = plugins.version
    width = max(map(len, paths)) + 2
    for name, path in paths.items():
        print(f"{name:<{width}}{path}  ({versions[name]})")
    return 0


def _up(args: argparse.Namespace) -> int:
    wanted = gates.parse(args.feature_gates)
    state = devstate.load()
    if state is not None:
        if any(p.alive for p in devstate.processes(state)):
            raise LocalClusterError(
                "a dev cluster is already running: `kubesched dev-cluster down` first"
            )
        devstate.stop(state)  # leftovers of a cluster that died: clear them
    cluster = LocalCluster(
        workdir=devstate.reset_run_dir(),
        detached=True,
        apiserver_args=args.apiserver_arg,
        controller_manager=args.controller_manager or args.dra,
        kwok=args.kwok or args.dra,
        gates=wanted,
    )
    try:
        cluster.start()
        if not args.no_scheduler:
            cluster.start_default_scheduler()
        if args.dra:
            _start_example_driver(cluster)
        if args.scheduler_plugins:
            _start_scheduler_plugins(cluster)
    except BaseException:
        cluster.stop()
        raise
    devstate.save(cluster)
    print(f"dev cluster up at {cluster.server}; logs in {cluster.logs_dir}", file=sys.stderr)
    if wanted:
        value = gates.render(wanted)
        print(
            f"feature gates {value} on in every component: run kubesched with "
            f"--feature-gates={value} too",
            file=sys.stderr,
        )
    print(f"export KUBECONFIG={cluster.kubeconfig_path}")
    return 0


def _start_scheduler_plugins(cluster: LocalCluster) -> None:
    """scheduler-plugins' CRDs, controller and scheduler (the second oracle) beside the rest."""
    plugins = ensure_scheduler_plugins()
    cluster.install_scheduler_plugins_crds()
    cluster.start_scheduler_plugins_controller(plugins)
    cluster.start_scheduler_plugins(plugins)
    print(
        f"scheduler-plugins {plugins.version}: pods with schedulerName {splugins.SCHEDULER} "
        f"go to its scheduler ({', '.join(splugins.DEFAULT_PLUGINS)})",
        file=sys.stderr,
    )


def _start_example_driver(cluster: LocalCluster) -> None:
    """The kwok GPU nodes, the example driver's class and slices, and its claim-preparing
    process `dra-driver` (recorded with the cluster's processes, so `down` stops it)."""
    nodes = [dra_driver.example_node(name) for name in dra_driver.EXAMPLE_NODES]
    cluster.kubectl(
        "create", "-f", "-", stdin=json.dumps({"kind": "List", "apiVersion": "v1", "items": nodes})
    )
    with dra_driver.LocalDraDriver(cluster.kubeconfig_path) as driver:
        driver.publish_classes()
        for name in dra_driver.EXAMPLE_NODES:
            driver.publish(name, dra_driver.EXAMPLE_GPUS)
    log = cluster.logs_dir / "dra-driver.log"
    argv = [sys.executable, "-m", "kubesched", "dev-cluster", "dra-driver"]
    process = cluster.spawn("dra-driver", [*argv, f"--kubeconfig={cluster.kubeconfig_path}"])
    wait_until(
        lambda: log_has(log, 0, dra_driver.READY_LINE.lower()),
        what="the example DRA driver",
        processes=[process],
        timeout=30.0,
    )
    gpus = dra_driver.EXAMPLE_GPUS
    print(
        f"example DRA driver gpu.example.com on {', '.join(dra_driver.EXAMPLE_NODES)}: each "
        f"{gpus.gpus} GPUs gpu-0..{gpus.gpus - 1} on {gpus.numa} NUMA nodes, a partitionable "
        "pgpu-0, a shared sgpu-0, a fabric-attached fgpu-0",
        file=sys.stderr,
    )


def _dra_driver(args: argparse.Namespace) -> int:
    asyncio.run(dra_driver.run_driver(args.kubeconfig, binding=args.binding, on_ready=_say))
    return 0


def _say(line: str) -> None:
    print(line, flush=True)


def _require_state() -> dict[str, object]:
    state = devstate.load()
    if state is None:
        raise LocalClusterError(
            "no dev cluster is running: start one with `kubesched dev-cluster up`"
        )
    return state


def _env(_args: argparse.Namespace) -> int:
    print(f"export KUBECONFIG={_require_state()['kubeconfig']}")
    return 0


def _status(_args: argparse.Namespace) -> int:
    state = _require_state()
    ca_file = Path(str(state["ca_file"]))
    endpoint = Endpoint(str(state["server"]), ca_file=ca_file, token=str(state["token"]))
    code, _ = get(endpoint, "/readyz")
    print(f"server      {state['server']}  (/readyz: {code or 'unreachable'})")
    print(f"kubeconfig  {state['kubeconfig']}")
    if state.get("feature_gates"):
        print(f"gates       {state['feature_gates']}  (give kubesched the same --feature-gates)")
    healthy = code == 200
    for process in devstate.processes(state):
        healthy = healthy and process.alive
        status = "running" if process.alive else "NOT RUNNING"
        print(f"{process.name:<28} pid {process.pid:<8} {status:<12} log {process.log}")
    return 0 if healthy else 1


def _down(_args: argparse.Namespace) -> int:
    state = devstate.load()
    if state is None:
        print("no dev cluster is running", file=sys.stderr)
        return 0
    stopped = devstate.stop(state)
    print(f"dev cluster stopped ({', '.join(stopped) or 'nothing was running'})", file=sys.stderr)
    return 0


def _demo(args: argparse.Namespace) -> int:
    demo_steps.run(hold=_hold if args.hold else None)
    print(
        "\ndemo done: the control plane is stopped (simulated: kwok played the kubelets, and "
        "the kubesched replicas ran as local processes)"
    )
    return 0


def _hold(cluster: LocalCluster) -> None:
    print(f"\nexport KUBECONFIG={cluster.kubeconfig_path}\nthe cluster runs until Ctrl-C")
    while True:
        time.sleep(3600)
