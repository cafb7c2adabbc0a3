"""A kubeconfig whose exec credential plugin command does not exist: every command that
connects says so in one line, naming the command and its user (the client library's own
`[Errno 2] No such file or directory` named neither), and exits 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.cli import main as kubesched

KUBECONFIG = """
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: ci-robot
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: %s
      args: [token]
      interactiveMode: Never
contexts:
- name: x
  context: {cluster: c, user: ci-robot}
current-context: x
"""


@pytest.mark.parametrize(
    ("argv", "prog"),
    [
        (["leases"], "kubesched leases"),
        (["doctor"], "kubesched doctor"),
        (["explain", "default/web-0"], "kubesched explain"),
        (["--leader-elect=false", "--secure-port=0"], "kubesched"),
    ],
    ids=["leases", "doctor", "explain", "run"],
)
@pytest.mark.parametrize("command", ["no-such-credential-helper", "./bin/no-such-helper"])
def test_a_missing_exec_command_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], prog: str, command: str
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(KUBECONFIG % command, encoding="utf-8")
    assert kubesched([*argv, f"--kubeconfig={kubeconfig}"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    expected = (
        f"{prog}: kubeconfig {kubeconfig}: the exec credential plugin command {command!r} of "
        "user 'ci-robot' was not found; install it or put its folder on PATH (or write its "
        "full path in users[].user.exec.command)"
    )
    assert err.splitlines() == [expected]
