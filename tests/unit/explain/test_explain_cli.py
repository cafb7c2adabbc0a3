"""`kubesched explain` command line: the pod argument among the flags of `kubesched run`."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.cli import COMMANDS
from kubesched.cli import main as cli_main
from kubesched.cli.explain import UsageError, main, parse_args


def test_explain_is_a_registered_command() -> None:
    assert COMMANDS["explain"][0] == "kubesched.cli.explain"


@pytest.mark.parametrize(
    "argv",
    [
        ["demo/web", "--scheduler-name=s"],
        ["--scheduler-name", "s", "demo/web"],
        ["--leader-elect", "false", "demo/web", "--scheduler-name", "s"],
        ["-v", "3", "demo/web", "--scheduler-name=s"],
        ["--lock-object-name", "x", "demo/web", "--scheduler-name=s"],
    ],
)
def test_the_pod_is_told_apart_from_run_flag_values(argv: list[str]) -> None:
    args = parse_args(argv)
    assert args.pod == "demo/web"
    assert "demo/web" not in args.run_flags


def test_own_options_are_taken_out_of_the_run_flags() -> None:
    args = parse_args(
        [
            "demo/web",
            "-o",
            "json",
            "--kubeconfig",
            "/k",
            "--context=c",
            "-f",
            "p.yaml",
            "--leader-elect",
        ]
    )
    assert (args.output, args.kubeconfig, args.context, args.filename) == (
        "json",
        "/k",
        "c",
        "p.yaml",
    )
    assert args.run_flags == ["--leader-elect"]
    assert parse_args(["demo/web", "-ojson"]).output == "json"
    assert parse_args(["-f", "-"]).filename == "-"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "give the pod as NAMESPACE/POD, or a file with -f"),
        (["a/b", "c/d"], "expected one NAMESPACE/POD"),
        (["a/b", "-o", "yaml"], "use one of table, json"),
        (["a/b", "-o"], "-o needs a value"),
    ],
)
def test_usage_errors(argv: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_args(argv)


def test_usage_errors_exit_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("kubesched explain: give the pod as NAMESPACE/POD")
    assert "\n" not in err


def test_unknown_run_flags_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo/web", "--no-such-flag=1"]) == 2
    assert "unknown flag --no-such-flag" in capsys.readouterr().err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["explain", "--help"]) == 0
    assert "usage: kubesched explain NAMESPACE/POD" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["-f", "{missing}"], "kubesched explain: cannot read "),
        (["-f", "{bad}"], "kubesched explain: "),
        (["bad-target", "-f", "{good}"], "kubesched explain: expected NAMESPACE/POD"),
        (
            ["demo/web", "--kubeconfig={missing}"],
            "kubesched explain: ",
        ),
    ],
)
def test_errors_are_one_line_with_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    (tmp_path / "bad.yaml").write_text("kind: Pod\nspec: [")
    (tmp_path / "good.yaml").write_text("kind: Pod\nspec: {containers: [{name: c}]}\n")
    paths = {name: str(tmp_path / f"{name}.yaml") for name in ("missing", "bad", "good")}
    argv = [arg.format(**paths) for arg in argv]
    assert main([*argv, "--scheduler-name=s", "--leader-elect=false"]) == 1
    err = [
        line
        for line in capsys.readouterr().err.splitlines()
        if line.startswith("kubesched explain")
    ]
    assert len(err) == 1
    assert err[0].startswith(message)


def test_the_scheduler_url_options() -> None:
    args = parse_args(
        [
            "ml/r-0",
            "--scheduler-url",
            "https://127.0.0.1:10259",
            "--scheduler-certificate-authority=/ca.crt",
            "--scheduler-insecure-skip-tls-verify",
            "--leader-elect=false",
        ]
    )
    assert (args.scheduler_url, args.scheduler_ca, args.scheduler_insecure) == (
        "https://127.0.0.1:10259",
        "/ca.crt",
        True,
    )
    assert args.run_flags == ["--leader-elect=false"]
    verify = parse_args(["ml/r-0", "--scheduler-insecure-skip-tls-verify=false"])
    assert verify.scheduler_insecure is False
    with pytest.raises(UsageError, match="use true or false"):
        parse_args(["ml/r-0", "--scheduler-insecure-skip-tls-verify=maybe"])
