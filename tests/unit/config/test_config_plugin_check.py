"""The profiles' plugins checked offline (`kubesched.config.plugin_check`): unknown plugins at
every extension point, pluginConfig for no plugin, bad in-tree args and unloadable
`--plugin-module`s are refused with kube-scheduler v1.37.2's texts; good configs pass."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from kubesched.cli import main as kubesched
from kubesched.config import ConfigError, LoadResult
from kubesched.config.plugin_check import check_plugins, plugin_errors

# The `load` and `write_config` fixtures of conftest.py.
Load = Callable[..., LoadResult]
WriteFile = Callable[[str], str]
PROG = "kubesched manifests"
# kube-scheduler's words for a profile it cannot build
WRAPPER = "initializing profiles: creating profile for scheduler name my-scheduler: "
POINTS = {
    "queueSort": "QueueSortPlugin",
    "preEnqueue": "PreEnqueuePlugin",
    "preFilter": "PreFilterPlugin",
    "filter": "FilterPlugin",
    "postFilter": "PostFilterPlugin",
    "preScore": "PreScorePlugin",
    "score": "ScorePlugin",
    "reserve": "ReservePlugin",
    "permit": "PermitPlugin",
    "preBind": "PreBindPlugin",
    "bind": "BindPlugin",
    "postBind": "PostBindPlugin",
}


def errors_of(load: Load, write_config: WriteFile, body: str, *flags: str) -> list[str]:
    """The errors of a config file: loading it, else building its profiles' plugins."""
    try:
        config = load([f"--config={write_config(body)}", *flags]).config
    except ConfigError as error:  # the args kube-scheduler validates with the file
        return list(error.errors)
    errors = plugin_errors(config)
    assert all("\n" not in error for error in errors), errors
    return errors


def enabling(point: str, name: str) -> str:
    return f"""
        profiles:
        - schedulerName: my-scheduler
          plugins:
            {point}:
              enabled:
              - name: {name}
        """


def with_args(plugin: str, args: str) -> str:
    return f"""
        profiles:
        - schedulerName: my-scheduler
          pluginConfig:
          - name: NodeAffinity
            args: {{}}
          - name: {plugin}
            args: {args}
        """


def test_the_default_profile_passes(load: Load) -> None:
    assert plugin_errors(load([]).config) == []


def test_a_profile_with_good_args_passes(load: Load, write_config: WriteFile) -> None:
    body = with_args("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated}}")
    assert errors_of(load, write_config, body) == []


@pytest.mark.parametrize(("point", "upstream_type"), POINTS.items())
def test_an_unknown_plugin_is_refused_at_each_extension_point(
    load: Load, write_config: WriteFile, point: str, upstream_type: str
) -> None:
    errors = errors_of(load, write_config, enabling(point, "NodeResorcesFit"))
    assert len(errors) == 1
    assert errors[0].startswith(
        f'{WRAPPER}{upstream_type} "NodeResorcesFit" '
        f"does not exist (enabled at {point}; available plugins: "
    )
    assert "NodeResourcesFit" in errors[0].split("available plugins: ")[1]


def test_an_unknown_multipoint_plugin_is_named_as_kube_scheduler_names_it(
    load: Load, write_config: WriteFile
) -> None:
    errors = errors_of(load, write_config, enabling("multiPoint", "PreferNodeLable"))
    assert len(errors) == 1
    assert 'PreFilterPlugin "PreferNodeLable" does not exist (enabled at multiPoint;' in errors[0]


def test_each_profile_is_checked(load: Load, write_config: WriteFile) -> None:
    body = """
        profiles:
        - schedulerName: a
          plugins: {filter: {enabled: [{name: Nope}]}}
        - schedulerName: b
          plugins: {score: {enabled: [{name: Nada}]}}
        """
    errors = errors_of(load, write_config, body)
    assert [error.split(" does not exist")[0] for error in errors] == [
        'initializing profiles: creating profile for scheduler name a: FilterPlugin "Nope"',
        'initializing profiles: creating profile for scheduler name b: ScorePlugin "Nada"',
    ]


def test_plugin_config_for_a_plugin_that_does_not_exist(
    load: Load, write_config: WriteFile
) -> None:
    """kube-scheduler ignores these args (it only reads the args of the plugins it builds),
    and so does kubesched, with a notice naming the likely typo."""
    config = load([f"--config={write_config(with_args('InterPodAfinity', '{}'))}"]).config
    checked = check_plugins(config)
    assert checked.notices == (
        (
            "profiles[0].pluginConfig[1]: plugin 'InterPodAfinity' does not exist, so its args "
            "are ignored (as kube-scheduler ignores them); did you mean InterPodAffinity?"
        ),
    )
    assert list(checked.config.profiles[0].plugin_config) == ["NodeAffinity"]


def test_plugin_config_given_twice_is_refused_while_loading(
    load: Load, write_config: WriteFile
) -> None:
    body = """
        profiles:
        - schedulerName: my-scheduler
          pluginConfig:
          - {name: NodeResourcesFit, args: {}}
          - {name: NodeResourcesFit, args: {}}
        """
    path = write_config(body)
    with pytest.raises(ConfigError) as caught:
        load([f"--config={path}"])
    assert caught.value.line == (
        'profiles[0].pluginConfig[1]: Duplicate value: "NodeResourcesFit" '
        f"({path}: also profiles[0].pluginConfig[0]; keep one entry per plugin)"
    )


@pytest.mark.parametrize(
    ("plugin", "args", "expected"),
    [
        (
            "NodeResourcesFit",
            "{scoringStrategy: {type: Foo}}",
            (
                'initializing plugin "NodeResourcesFit": scoringStrategy.type: Unsupported value: '
                '"Foo": supported values: "LeastAllocated", "MostAllocated", '
                '"RequestedToCapacityRatio" (at profiles[0].pluginConfig[1].args)'
            ),
        ),
        (
            "InterPodAffinity",
            "{hardPodAffinityWeight: 101}",
            (
                "profiles[0].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 101: "
                "not in valid range [0, 100]"
            ),
        ),
        (
            "PodTopologySpread",
            (
                "{defaultingType: List, defaultConstraints: [{maxSkew: 0, topologyKey: zone, "
                "whenUnsatisfiable: DoNotSchedule}]}"
            ),
            (
                "profiles[0].pluginConfig[1].args.defaultConstraints[0].maxSkew: Invalid value: 0: "
                "not in valid range (0, inf)"
            ),
        ),
        (
            "PodTopologySpread",
            (
                "{defaultingType: List, defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                "whenUnsatisfiable: Sometimes}]}"
            ),
            (
                "profiles[0].pluginConfig[1].args.defaultConstraints[0].whenUnsatisfiable: "
                'Unsupported value: "Sometimes": supported values: "DoNotSchedule", '
                '"ScheduleAnyway"'
            ),
        ),
        (
            "PodTopologySpread",
            (
                "{defaultConstraints: [{maxSkew: 1, topologyKey: zone, "
                "whenUnsatisfiable: DoNotSchedule}]}"
            ),
            (
                'profiles[0].pluginConfig[1].args.defaultingType: Invalid value: "System": '
                "when .defaultConstraints are not empty"
            ),
        ),
        (
            "DefaultPreemption",
            "{minCandidateNodesPercentage: 101}",
            (
                "profiles[0].pluginConfig[1].args.minCandidateNodesPercentage: Invalid value: 101: "
                "not in valid range [0, 100]"
            ),
        ),
    ],
)
def test_bad_in_tree_args_are_refused_with_kube_schedulers_text(
    load: Load, write_config: WriteFile, plugin: str, args: str, expected: str
) -> None:
    errors = errors_of(load, write_config, with_args(plugin, args))
    wrapper = (
        "initializing profiles: creating profile for scheduler name my-scheduler: "
        if expected.startswith("initializing")
        else ""
    )
    assert errors == [f"{wrapper}{expected}"]


def test_unknown_args_fields_are_refused_with_kube_schedulers_decoding_text(
    load: Load, write_config: WriteFile
) -> None:
    errors = errors_of(load, write_config, with_args("InterPodAffinity", "{bogus: 1, also: 2}"))
    assert errors == [
        (
            "strict decoding error: decoding .profiles[0].pluginConfig[1]: "
            "strict decoding error: decoding args for plugin InterPodAffinity: strict decoding "
            'error: unknown field "also", unknown field "bogus" (valid fields: '
            "hardPodAffinityWeight, ignorePreferredTermsOfExistingPods)"
        )
    ]
    nested = with_args("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated, x: 1}}")
    (error,) = errors_of(load, write_config, nested)
    assert (
        "decoding args for plugin NodeResourcesFit: strict decoding error: unknown field "
        '"scoringStrategy.x" (valid fields of scoringStrategy: '
    ) in error


def test_an_args_error_without_an_upstream_path_keeps_the_builders_words(
    load: Load, write_config: WriteFile
) -> None:
    (error,) = errors_of(load, write_config, with_args("NodeName", "{bogus: 1}"))
    assert error == (
        f'{WRAPPER}initializing plugin "NodeName": plugin '
        "NodeName takes no args, got: bogus (enabled at multiPoint)"
    )


def test_a_plugin_module_that_cannot_be_imported(load: Load) -> None:
    errors = plugin_errors(load(["--plugin-module=does_not_exist"]).config)
    assert errors == [
        (
            "--plugin-module does_not_exist: cannot import it: ModuleNotFoundError: No module "
            "named 'does_not_exist'; make it importable here: pip install its package, or add "
            "its folder to PYTHONPATH"
        )
    ]


def test_a_plugin_module_without_register_gets_no_import_hint(
    load: Load, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "no_register_here.py").write_text('"""Nothing to register."""\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    errors = plugin_errors(load(["--plugin-module=no_register_here"]).config)
    assert errors == [
        "--plugin-module no_register_here: the module defines no `register(registry)` function"
    ]


PLUGIN_MODULE = '''
"""A Filter plugin registered by a --plugin-module."""


class Picky:
    name = "Picky"

    def __init__(self, *, args, handle):
        if args.get("strict") not in (None, True, False):
            raise ValueError("PickyArgs.strict: expected a boolean")

    def filter(self, state, pod, node_info):
        return None


def register(registry):
    registry.register_class(Picky)
'''


def test_a_plugin_of_a_plugin_module_is_known_and_its_args_checked(
    load: Load, write_config: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "picky_plugin.py").write_text(PLUGIN_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    good = enabling("filter", "Picky")
    assert errors_of(load, write_config, good, "--plugin-module=picky_plugin") == []
    bad = good + "  pluginConfig: [{name: Picky, args: {strict: maybe}}]\n"
    errors = errors_of(load, write_config, bad, "--plugin-module=picky_plugin")
    assert errors == [
        (
            f'{WRAPPER}initializing plugin "Picky": '
            "PickyArgs.strict: expected a boolean (enabled at filter)"
        )
    ]


# The commands: `kubesched --write-config-to`, `kubesched run`, `kubesched manifests` (YAML and
# --helm-chart) refuse the same configs with the same one line and exit 1.

BAD_ARGS = with_args("InterPodAffinity", "{hardPodAffinityWeight: 101}")
BAD_ARGS_TEXT = (
    "profiles[0].pluginConfig[1].args.hardPodAffinityWeight: Invalid value: 101: not in valid "
    "range [0, 100]"
)


def refusal(capsys: pytest.CaptureFixture[str], argv: list[str], *, prog: str) -> str:
    """The one error line of a command that must fail with exit 1 and print nothing else."""
    assert kubesched(argv) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith(f"{prog}: ")]
    assert len(errors) == 1, err
    return errors[0].removeprefix(f"{prog}: ")


@pytest.mark.parametrize(
    "command",
    [
        ["--write-config-to=-"],
        ["run", "--write-config-to=-"],
        ["--leader-elect=false", "--kubeconfig=/nowhere"],
        ["manifests"],
    ],
    ids=["write-config-to", "run-write-config-to", "run", "manifests"],
)
def test_each_command_refuses_bad_args(
    capsys: pytest.CaptureFixture[str], write_config: WriteFile, command: list[str]
) -> None:
    prog = "kubesched manifests" if command[0] == "manifests" else "kubesched"
    argv = [*command, f"--config={write_config(BAD_ARGS)}"]
    assert refusal(capsys, argv, prog=prog) == BAD_ARGS_TEXT


@pytest.mark.parametrize(
    ("body_and_flags", "expected"),
    [
        ((enabling("preFilter", "Nope"), ""), 'PreFilterPlugin "Nope" does not exist'),
        ((BAD_ARGS, ""), "hardPodAffinityWeight: Invalid value: 101"),
        (("", "--plugin-module=does_not_exist"), "No module named 'does_not_exist'; make it"),
    ],
    ids=["unknown-plugin", "bad-args", "plugin-module"],
)
def test_the_helm_chart_is_not_written_for_a_bad_config(
    capsys: pytest.CaptureFixture[str],
    write_config: WriteFile,
    tmp_path: Path,
    body_and_flags: tuple[str, str],
    expected: str,
) -> None:
    body, flag = body_and_flags
    chart = tmp_path / "chart"
    argv = ["manifests", f"--helm-chart={chart}", f"--config={write_config(body)}"]
    assert expected in refusal(capsys, [*argv, *filter(None, [flag])], prog=PROG)
    assert not chart.exists()


def test_manifests_refuse_a_plugin_module_they_cannot_derive_rbac_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It used to be skipped, and the RBAC of what its plugins read silently left out."""
    line = refusal(capsys, ["manifests", "--plugin-module=does_not_exist"], prog=PROG)
    assert line.startswith("--plugin-module does_not_exist: cannot import it: ")


def test_a_good_config_is_still_written(write_config: WriteFile, tmp_path: Path) -> None:
    body = with_args("NodeResourcesFit", "{scoringStrategy: {type: MostAllocated}}")
    written = tmp_path / "written.yaml"
    assert kubesched([f"--write-config-to={written}", f"--config={write_config(body)}"]) == 0
    assert "type: MostAllocated" in written.read_text()
