"""`kubesched manifests [FLAGS]`: print the YAML that deploys kubesched.

    kubesched manifests --scheduler-name=my-scheduler | kubectl apply -f -

Its own flags choose where and how kubesched runs (--namespace, --name, --image,
--replicas, --resources, --priority-class-name, --node-selector, --tolerations, ...: see
`kubesched.cli.manifests_flags`); `--helm-chart DIR` writes the Helm chart made from the same
objects instead (`make chart`), `--crds-only` prints only the CustomResourceDefinitions.
Every other flag is a scheduler flag of `kubesched run` (`--config`, `--scheduler-name`,
`--leader-elect-*` and the aliases from the two guides, `-v`, ...) and ends up in the
generated KubeSchedulerConfiguration or in the container's arguments. The Lease's namespace
defaults to --namespace, as it does for a pod in that namespace.

The YAML goes to stdout, notices to stderr; an error is one line on stderr and exit code 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import sys
from pathlib import Path
from typing import NoReturn

from kubesched.cli import manifests_flags
from kubesched.cli.chart_folder import check_chart_folder
from kubesched.config import ConfigError, KubeSchedulerConfiguration, complete, parse_options
from kubesched.config.args_check import IN_TREE_ARGS
from kubesched.config.flagtable import BY_NAME, CANONICAL, SCHEDULER_NAME_NOTICE
from kubesched.config.plugin_check import check_plugins
from kubesched.manifests import (
    ManifestError,
    ManifestOptions,
    build_manifests,
    to_yaml,
)
from kubesched.manifests.chart import chart_files, write_chart
from kubesched.manifests.options import unpublished_image_notice
from kubesched.manifests.rbac import resource_rules
from kubesched.manifests.shadow import refuse_shadow_chart
from kubesched.plugins import config_resources, in_tree_resources

PROG = "kubesched manifests"
_DESCRIPTION = """Print the YAML that deploys kubesched with least-privilege RBAC:
  kubesched manifests --scheduler-name=my-scheduler | kubectl apply -f -

Any flag of `kubesched run` (see `kubesched --help`) is accepted too: --config=FILE to start
from an existing KubeSchedulerConfiguration, --scheduler-name, --leader-elect-resource-name,
--leader-elect-resource-namespace (default: --namespace), the --leader-elect-* timings, -v."""
# Flags of `kubesched run` that make no sense for a Deployment the manifests describe.
_REFUSED = {
    "write-config-to": "prints the config inside its ConfigMap; drop --write-config-to",
    "cert-dir": "sets --cert-dir to an emptyDir itself; drop --cert-dir",
    "tls-cert-file": "serves a self-signed certificate; to use yours, mount a Secret and add "
    "--tls-cert-file/--tls-private-key-file to the Deployment's args",
    "tls-private-key-file": "serves a self-signed certificate; to use yours, mount a Secret "
    "and add --tls-cert-file/--tls-private-key-file to the Deployment's args",
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise ManifestError(message.removeprefix("argument "))


def _parser() -> _Parser:
    parser = _Parser(
        prog=PROG,
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
        add_help=False,
    )
    parser.add_argument("-h", "--help", action="store_true", help="show this help and exit")
    manifests_flags.add_flags(parser)
    return parser


def main(argv: list[str]) -> int:
    """Print the manifests; 0 on success, 1 with one line per problem on stderr."""
    parser = _parser()
    notices: tuple[str, ...] = ()
    try:
        own, rest = parser.parse_known_args(argv)
        if own.help:
            print(parser.format_help().rstrip("\n"))
            return 0
        manifests_flags.check_own(own)
        config, notices = _config(rest, namespace=own.namespace)
        options = dataclasses.replace(
            manifests_flags.options_from(own),
            plugin_resources=tuple(config_resources(config)),
        )
        if own.helm_chart:
            refuse_shadow_chart(config)
            folder = Path(own.helm_chart)
            return _write_chart(folder, config, options, notices, overwrite=own.overwrite)
        text = _render(config, options, crds_only=own.crds_only)
        if not own.crds_only and (unpublished := unpublished_image_notice(options.image)):
            notices = (*notices, unpublished)
    except ConfigError as error:
        return _fail(error.notices, (error.line,))
    except ManifestError as error:
        return _fail(notices, (str(error),))
    _print_notices(notices)
    sys.stdout.write(text)
    return 0


def _render(
    config: KubeSchedulerConfiguration, options: ManifestOptions, *, crds_only: bool
) -> str:
    """The YAML of the manifests, or of their CustomResourceDefinitions alone."""
    if crds_only:
        options = dataclasses.replace(options, with_crds=True)
    objects = build_manifests(config, options)  # refuses what cannot work, CRDs alone or not
    if crds_only:
        objects = [obj for obj in objects if obj["kind"] == "CustomResourceDefinition"]
    return to_yaml(objects)


def _write_chart(
    folder: Path,
    config: KubeSchedulerConfiguration,
    options: ManifestOptions,
    notices: tuple[str, ...],
    *,
    overwrite: bool,
) -> int:
    """`--helm-chart DIR`: the chart whose default values are these manifests. Its
    ClusterRole derives from the values what kubesched's own plugins read; what plugin
    modules read becomes the default `rbac.extraRules`. Files of DIR it would change are
    only replaced with `--overwrite`."""
    derived = resource_rules(config_resources(config, in_tree_only=True))
    extra = [rule for rule in resource_rules(options.plugin_resources) if rule not in derived]
    options = dataclasses.replace(options, extra_rules=(*options.extra_rules, *extra))
    declared = in_tree_resources()
    if not overwrite:
        check_chart_folder(folder, chart_files(config, options, declared=declared))
    try:
        written = write_chart(folder, config, options, declared=declared)
    except OSError as error:
        raise ManifestError(
            f"--helm-chart {folder}: cannot write the chart: {error.strerror or error}"
            f"{f' ({error.filename})' if error.filename else ''}; choose a folder you can write"
        ) from error
    _print_notices(notices)
    for path in written:
        print(path)
    return 0


def _fail(notices: tuple[str, ...], errors: tuple[str, ...]) -> int:
    _print_notices(notices)
    for line in errors:
        print(f"{PROG}: {line}", file=sys.stderr)
    return 1


def _print_notices(notices: tuple[str, ...]) -> None:
    for notice in notices:
        if notice != SCHEDULER_NAME_NOTICE:  # a first-class flag here, not a legacy one
            print(notice, file=sys.stderr)


def _config(
    argv: list[str], *, namespace: str
) -> tuple[KubeSchedulerConfiguration, tuple[str, ...]]:
    """The completed config of the scheduler flags, with the Lease in `namespace` by default."""
    names = [arg for arg in argv if arg.split("=", 1)[0] == "--scheduler-name"]
    if len(names) > 1:
        raise ManifestError(
            "--scheduler-name is given more than once; for several profiles write them "
            "(profiles[].schedulerName) in a file and pass --config=FILE"
        )
    _check_own_typos(argv)
    options = parse_options(argv)
    for flag, why in _REFUSED.items():
        if options.given(flag):
            raise ManifestError(f"--{flag}: {PROG} {why}")
    result = complete(options, environ={"POD_NAMESPACE": namespace}, args_checks=IN_TREE_ARGS)
    try:
        checked = check_plugins(result.config)  # as `kubesched --write-config-to` refuses them
    except ConfigError as error:
        raise ConfigError(error.problems(), notices=result.notices + error.notices) from error
    notices = [*result.notices, *checked.notices]
    return _in_cluster(checked.config, notices=notices, master=options.given("master"))


def _check_own_typos(argv: list[str]) -> None:
    """An unknown flag close to one of this command's own (`--namspace`) is named as such;
    the scheduler flags' parser would only know its own flags."""
    for item in argv:
        name = item.split("=", 1)[0].removeprefix("--")
        if not item.startswith("--") or name in BY_NAME or name in CANONICAL:
            continue
        matches = difflib.get_close_matches(name, manifests_flags.OWN_FLAGS, n=1, cutoff=0.75)
        if matches:
            raise ManifestError(
                f"unknown flag --{name} (did you mean --{matches[0]}?); "
                f"run `{PROG} --help` for the flags"
            )


def _in_cluster(
    config: KubeSchedulerConfiguration, *, notices: list[str], master: bool
) -> tuple[KubeSchedulerConfiguration, tuple[str, ...]]:
    """In its pod kubesched reaches the API server with its service account: a kubeconfig
    path or --master from this machine would be wrong there, so both are dropped."""
    connection = config.client_connection
    if connection.kubeconfig:
        notices.append(
            f"clientConnection.kubeconfig ({connection.kubeconfig}) is left out: in the cluster "
            "kubesched uses its service account"
        )
    if master:
        notices.append("--master is left out: in the cluster kubesched uses its service account")
    connection = dataclasses.replace(connection, kubeconfig="", master="")
    return dataclasses.replace(config, client_connection=connection), tuple(notices)
