"""The README's shell commands, as a user copies them: every command of its `sh` blocks is
either run here as written (those that need no cluster) or named with the end-to-end test
that runs it on the real control plane, so a new command cannot slip in untested.

Run here: the command-line install (`make dist` on a copy of the tree, then the wheel
installed by `pipx install` and, the alternative, by pip into a new virtualenv, each followed
by `kubesched --version`, all by a shell with a throwaway HOME and no development virtualenv
on PATH), `kubesched manifests` of the deploy line, and the manifests of the plugin example
(by a shell, as written).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import yaml
from packaging.metadata import Metadata

import kubesched
from kubesched.localcluster.paths import cache_dir

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

PLUGIN_MANIFESTS = (
    "PYTHONPATH=examples/prefer_label kubesched manifests "
    "--config=examples/prefer_label/profile.yaml --plugin-module=prefer_label "
    "--image=registry.example.com/kubesched:0.1.0-plugins > kubesched.yaml"
)
INSTALL_PIPX = (
    "make dist",
    "pipx install dist/kubesched-0.1.0-py3-none-any.whl",
    "kubesched --version",
)
INSTALL_VENV = (
    "python3 -m venv ~/.local/share/kubesched-venv",
    "~/.local/share/kubesched-venv/bin/pip install dist/kubesched-0.1.0-py3-none-any.whl",
    "~/.local/share/kubesched-venv/bin/kubesched --version",
)
PIPX_VERSION = "1.18.4"  # the pipx the install test brings (a user's comes with the system)
RUN_HERE = {
    *INSTALL_PIPX,
    *INSTALL_VENV,
    (
        "kubesched manifests --namespace=kubesched-system --scheduler-name=my-scheduler "
        "--image=registry.example.com/kubesched:0.1.0 | kubectl apply -f -"
    ),
    PLUGIN_MANIFESTS,
}
ELSEWHERE = {
    "make demo": "tests/e2e/test_demo.py",
    "make image IMAGE_PLUGINS=examples/prefer_label/prefer_label.py": (
        "tests/e2e/test_image_plugins.py"
    ),
    "make test": ".ci/run (this very suite)",
    "kubesched --leader-elect=true --scheduler-name=my-scheduler "
    "--lock-object-name=my-scheduler --lock-object-namespace=kube-system": (
        "tests/e2e/test_scheduling_guides.py"
    ),
    "kubesched --leader-elect=true --scheduler-name=my-custom-scheduler "
    "--leader-election-resource-name=my-custom-scheduler "
    "--leader-election-resource-namespace=custom-scheduler-ns": (
        "tests/e2e/test_scheduling_guides.py"
    ),
    "kubesched --config=/etc/kubesched/config.yaml": "tests/e2e/test_helm_chart.py",
    "kubesched explain default/web --scheduler-name=my-scheduler": "tests/e2e/test_explain.py",
    "kubesched doctor --scheduler-name=my-scheduler "
    "--leader-elect-resource-namespace=kubesched-system "
    "--service-account=kubesched-system/my-scheduler": "tests/e2e/test_doctor.py",
    "kubesched leases -A": "tests/e2e/test_doctor.py",
    "kubesched explain NAMESPACE/POD --scheduler-name=my-scheduler": "tests/e2e/test_explain.py",
}
DEV_CLUSTER = "tests/e2e/test_localcluster.py"
"""`kubesched dev-cluster ...`, `eval "$(... env)"` and `kubectl get nodes`."""


def readme_commands() -> list[str]:
    """Each command of the README's `sh` blocks, continuations joined, comments dropped."""
    commands: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.DOTALL):
        for line in block.replace("\\\n", " ").splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command:
                commands.append(" ".join(command.split()))
    return commands


def test_every_readme_command_is_run_by_a_test() -> None:
    unknown = [
        command
        for command in readme_commands()
        if command not in RUN_HERE
        and command not in ELSEWHERE
        and "dev-cluster" not in command
        and command != "kubectl get nodes"
    ]
    assert not unknown, f"README commands no test runs: {unknown}"
    assert (ROOT / DEV_CLUSTER).exists()
    for test in ELSEWHERE.values():
        path = test.split(" ")[0]
        assert (ROOT / path).exists(), path


def _copy_of_the_tree(target: Path) -> Path:
    """The work tree's files (tracked, or new and not ignored) copied to `target`, as a fresh
    clone would hold them: no .venv, no dist/, no build/."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _user_shell(tmp_path: Path) -> Callable[[str], subprocess.CompletedProcess[str]]:
    """Runs a command by a shell as a README reader would: a HOME of its own, the system's
    python3 first on PATH, pipx there, no virtualenv active."""
    home = tmp_path / "home"
    # The user's python3, outside the project's virtualenv (the README's reader has none).
    python = os.path.realpath(sys.base_prefix + "/bin/python3")
    bin_dir = _pipx_env(python) / "bin"
    path = [p for p in os.environ["PATH"].split(":") if not p.startswith(str(ROOT))]
    pipx_only = tmp_path / "pipx-bin"
    pipx_only.mkdir()
    (pipx_only / "pipx").symlink_to(bin_dir / "pipx")
    (pipx_only / "python3").symlink_to(python)
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env |= {
        "HOME": str(home),
        "PATH": ":".join([str(home / ".local" / "bin"), str(pipx_only), *path]),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        # The downloads are the user's own pip cache's; what is installed is built anew.
        "PIP_CACHE_DIR": str(Path("~/.cache/pip").expanduser()),
    }

    def run(command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path / "tree",
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    return run


def _pipx_env(python: str) -> Path:
    """A virtualenv of `python` with pipx, kept in the cache like the binaries (it is the
    test's tool, not what it tests): made once per pipx and Python version."""
    version = subprocess.run(
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env_dir = cache_dir() / "pipx" / f"pipx-{PIPX_VERSION}-python-{version}"
    made = env_dir / "made"
    if made.is_file() and made.read_text() == python:
        return env_dir
    shutil.rmtree(env_dir, ignore_errors=True)
    subprocess.run([python, "-m", "venv", str(env_dir)], check=True, timeout=120)
    subprocess.run(
        [env_dir / "bin" / "python", "-m", "pip", "install", "--quiet", f"pipx=={PIPX_VERSION}"],
        check=True,
        timeout=300,
    )
    made.write_text(python)
    return env_dir


def test_the_command_line_installs_from_the_wheel_as_the_readme_says(tmp_path: Path) -> None:
    assert set(readme_commands()) >= RUN_HERE
    (tmp_path / "tree").mkdir()
    tree = _copy_of_the_tree(tmp_path / "tree")
    shell = _user_shell(tmp_path)
    started = time.monotonic()
    built = shell(INSTALL_PIPX[0])
    assert built.returncode == 0, built.stderr
    assert time.monotonic() - started < 120, "make dist should take seconds"
    assert not (tree / ".venv").exists(), "make dist must not build the development venv"
    _check_wheel_metadata(tree / "dist" / "kubesched-0.1.0-py3-none-any.whl")
    for command in (*INSTALL_PIPX[1:], *INSTALL_VENV):
        done = shell(command)
        assert done.returncode == 0, f"{command}: {done.stderr}"
        if command.endswith("--version"):
            assert done.stdout.startswith("kubesched v0.1.0"), done.stdout
    which = shell("command -v kubesched")
    assert which.stdout.strip() == str(tmp_path / "home" / ".local" / "bin" / "kubesched")
    for kubesched_bin in ("kubesched", "~/.local/share/kubesched-venv/bin/kubesched"):
        helped = shell(f"{kubesched_bin} --help")
        assert helped.returncode == 0, helped.stderr
        assert "manifests" in helped.stdout


def _check_wheel_metadata(wheel: Path) -> None:
    """What `twine check` would look at: core metadata that parses and validates (2.4, PEP
    639's license expression with the LICENSE file inside), the classifiers, the README."""
    with zipfile.ZipFile(wheel) as archive:
        raw = archive.read("kubesched-0.1.0.dist-info/METADATA")
        names = archive.namelist()
    metadata = Metadata.from_email(raw, validate=True)
    assert metadata.metadata_version == "2.4"
    assert metadata.license_expression == "Apache-2.0"
    assert metadata.license_files == ["LICENSE"]
    assert "kubesched-0.1.0.dist-info/licenses/LICENSE" in names
    assert "Typing :: Typed" in (metadata.classifiers or [])
    assert metadata.description_content_type == "text/markdown"


def test_the_deploy_lines_manifests_render_what_the_doctor_line_checks() -> None:
    deploy = next(c for c in RUN_HERE if c.startswith("kubesched manifests"))
    argv = shlex.split(deploy.split("|")[0])
    done = subprocess.run(
        [sys.executable, "-m", "kubesched", *argv[1:]],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    objects = [o for o in yaml.safe_load_all(done.stdout) if o]
    accounts = {
        f"{o['metadata']['namespace']}/{o['metadata']['name']}"
        for o in objects
        if o["kind"] == "ServiceAccount"
    }
    doctor = next(c for c in ELSEWHERE if c.startswith("kubesched doctor"))
    assert "--service-account=kubesched-system/my-scheduler" in doctor
    assert accounts == {"kubesched-system/my-scheduler"}
    config = next(o for o in objects if o["kind"] == "ConfigMap")
    text = next(iter(config["data"].values()))
    assert "resourceNamespace: kubesched-system" in text
    assert "--leader-elect-resource-namespace=kubesched-system" in doctor


def test_the_plugin_examples_manifests_run_as_written(tmp_path: Path) -> None:
    """By a shell in a folder holding `examples/`, with `kubesched` the one under test."""
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    src = Path(kubesched.__file__).resolve().parents[1]
    wrapper = bin_dir / "kubesched"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'PYTHONPATH="${{PYTHONPATH:+$PYTHONPATH:}}{src}" exec {sys.executable} -m kubesched "$@"\n'
    )
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        ["sh", "-c", PLUGIN_MANIFESTS],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    objects = [o for o in yaml.safe_load_all((tmp_path / "kubesched.yaml").read_text()) if o]
    (deployment,) = [o for o in objects if o["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["image"] == "registry.example.com/kubesched:0.1.0-plugins"
    assert "--plugin-module=prefer_label" in container["args"]
    config = next(o for o in objects if o["kind"] == "ConfigMap")
    assert "PreferNodeLabel" in next(iter(config["data"].values()))

    without = subprocess.run(
        ["sh", "-c", PLUGIN_MANIFESTS.removeprefix("PYTHONPATH=examples/prefer_label ")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert without.returncode == 1
    assert without.stderr.count("\n") == 1, without.stderr
    assert "--plugin-module prefer_label: cannot import it" in without.stderr
