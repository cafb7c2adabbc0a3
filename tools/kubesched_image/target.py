"""Run the image's own Python on this machine, without chroot: its dynamic loader and shared
libraries from the staged root filesystem, PYTHONHOME there too. It compiles the bytecode (so
the .pyc files match the interpreter that reads them) and imports everything as a check."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from kubesched_image.errors import ImageError, tail

MULTIARCH = "x86_64-linux-gnu"
CACHE_TAG = "cpython-311"
# Bytecode is compiled in this many processes, each given a fixed slice of the sorted files:
# a constant, not the machine's core count, so that every machine writes the same .pyc bytes.
COMPILE_SLICES = 4

_COMPILE = """
import json, py_compile, sys
mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
failed = []
for line in sys.stdin:
    source, cfile, dfile = json.loads(line)
    try:
        py_compile.compile(source, cfile=cfile, dfile=dfile, doraise=True, invalidation_mode=mode)
    except py_compile.PyCompileError:
        failed.append(dfile)
print(json.dumps(failed))
"""

_SMOKE = """
import importlib, json, pathlib, sys
failed = []
for folder in json.loads(sys.argv[1]):
    for path in sorted(pathlib.Path(folder).rglob("*.so")):
        parts = path.relative_to(folder).parts
        module = ".".join([*parts[:-1], parts[-1].split(".")[0]])
        if not all(part.isidentifier() for part in module.split(".")):
            continue  # a vendored shared library (`cffi.libs/...`), not a module
        try:
            importlib.import_module(module)
        except Exception as error:
            failed.append(f"{module}: {error}")
if failed:
    sys.exit("cannot import " + "; ".join(failed))
from kubesched.cli import main
sys.argv = ["kubesched", "--help"]
try:
    main()
except SystemExit as done:
    sys.exit(done.code)
"""


class TargetPython:
    """`/usr/bin/python3.11` of the root filesystem staged at `root`."""

    def __init__(self, root: Path) -> None:
        if sys.platform != "linux" or platform.machine() != "x86_64":
            raise ImageError(
                "the image is built by running its own Python (linux/amd64) on this machine: "
                "build on an x86_64 Linux host, or use `docker build` for other platforms"
            )
        self.root = root
        self._scratch = tempfile.TemporaryDirectory(prefix="kubesched-image-pycache-")

    def argv(self, *args: str, own_bytecode: bool = False) -> list[str]:
        """The command line; -S: no site-packages of any machine. Unless `own_bytecode`, an
        empty pycache_prefix: the interpreter neither reads nor writes the staged tree's
        bytecode (what it runs then depends on the sources only)."""
        libs = [self.root / "lib" / MULTIARCH, self.root / "usr" / "lib" / MULTIARCH]
        loader = self.root / "lib" / MULTIARCH / "ld-linux-x86-64.so.2"
        python = self.root / "usr" / "bin" / "python3.11"
        argv = [str(loader), "--library-path", ":".join(map(str, libs)), str(python), "-S"]
        if not own_bytecode:
            argv += ["-X", f"pycache_prefix={self._scratch.name}"]
        return [*argv, *args]

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        return {
            "PYTHONHOME": str(self.root / "usr"),
            "PYTHONHASHSEED": "0",
            "PYTHONDONTWRITEBYTECODE": "1",
            "LC_ALL": "C.UTF-8",
            "PATH": "/usr/bin:/bin",
            **(extra or {}),
        }

    def run(
        self,
        *args: str,
        what: str,
        env: Mapping[str, str] | None = None,
        own_bytecode: bool = False,
    ) -> str:
        done = subprocess.run(
            self.argv(*args, own_bytecode=own_bytecode),
            capture_output=True,
            text=True,
            check=False,
            env=self.env(env),
        )
        if done.returncode != 0:
            raise ImageError(
                f"the image's Python failed to {what} (exit {done.returncode})",
                details=tail(done.stderr or done.stdout),
            )
        return done.stdout

    def version(self) -> str:
        out = self.run("-c", "import platform; print(platform.python_version())", what="start")
        return out.strip()

    def close(self) -> None:
        self._scratch.cleanup()


def bytecode_jobs(trees: Sequence[tuple[Path, str]]) -> list[tuple[str, str, str]]:
    """(source, .pyc to write, path inside the image) for every .py under each (folder on
    this machine, the same folder inside the image), sorted."""
    jobs = []
    for folder, inside in trees:
        for source in sorted(folder.rglob("*.py")):
            if source.is_symlink() or not source.is_file():
                continue
            cfile = source.parent / "__pycache__" / f"{source.stem}.{CACHE_TAG}.pyc"
            dfile = f"{inside.rstrip('/')}/{source.relative_to(folder).as_posix()}"
            jobs.append((str(source), str(cfile), dfile))
    return jobs


def compile_bytecode(python: TargetPython, trees: Sequence[tuple[Path, str]]) -> list[str]:
    """Compile every module with hash-based validation (no mtime in the .pyc, not re-checked:
    the root filesystem is read-only); the image paths of the files that do not compile."""
    jobs = bytecode_jobs(trees)
    size = -(-len(jobs) // COMPILE_SLICES)
    slices = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    processes = [
        subprocess.Popen(
            python.argv("-c", _COMPILE),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=python.env(),
        )
        for _ in slices
    ]
    failed: list[str] = []
    for process, part in zip(processes, slices, strict=True):
        out, err = process.communicate("".join(json.dumps(job) + "\n" for job in part))
        if process.returncode != 0:
            raise ImageError("the image's Python failed to compile bytecode", details=tail(err))
        failed.extend(json.loads(out))
    return failed


def smoke(python: TargetPython, *, sites: Sequence[Path], extension_dirs: Sequence[Path]) -> None:
    """Import every extension module (each finds its shared libraries in the image) and run
    `kubesched --help`, as the Dockerfile's build does."""
    python.run(
        "-c",
        _SMOKE,
        json.dumps([str(folder) for folder in extension_dirs]),
        what="import every extension module and run `kubesched --help`",
        env={"PYTHONPATH": ":".join(map(str, sites))},
        own_bytecode=True,  # the .pyc files just compiled are the ones imported
    )
