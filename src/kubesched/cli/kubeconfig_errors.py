"""A kubeconfig that cannot be loaded, said in one line a user can act on.

An exec credential plugin whose command does not exist surfaces from the client library as
a bare `[Errno 2] No such file or directory` (without the command under some event loops);
`connection_error_text` names the command, the kubeconfig user that runs it and the fix. The
library's own log line for it is silenced (`quiet_kubeconfig_loader`): the command prints the
error once, itself.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path

import yaml

from kubesched.kube.connection import ConnectionConfigError

_CANNOT_LOAD = re.compile(r"cannot load kubeconfig (?P<path>.+?): ")
_LIBRARY_LOGGER = "kubernetes_asyncio.config.kube_config"


def quiet_kubeconfig_loader() -> None:
    """Keep the client library from logging the error the command is about to print."""
    logging.getLogger(_LIBRARY_LOGGER).setLevel(logging.CRITICAL)


def connection_error_text(error: BaseException) -> str:
    """The error's message; for a kubeconfig whose exec plugin command cannot be run, one
    naming it."""
    message = str(error)
    if not isinstance(error, ConnectionConfigError):
        return message
    cause = error.__cause__
    found = _CANNOT_LOAD.match(message)
    if not isinstance(cause, FileNotFoundError) or found is None:
        return message
    path = found["path"]
    missing = [
        (user, command) for user, command in _exec_commands(path) if not _runnable(command, path)
    ]
    if not missing:
        return message
    user, command = missing[0]
    return (
        f"kubeconfig {path}: the exec credential plugin command {command!r} of user {user!r} "
        "was not found; install it or put its folder on PATH (or write its full path in "
        "users[].user.exec.command)"
    )


def _exec_commands(paths: str) -> list[tuple[str, str]]:
    """(user, exec command) of every user of the kubeconfig file(s) with an exec plugin."""
    found: list[tuple[str, str]] = []
    for part in (p for p in paths.split(os.pathsep) if p):
        try:
            document = yaml.safe_load(Path(part).expanduser().read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue
        users = document.get("users") if isinstance(document, dict) else None
        for entry in users if isinstance(users, list) else []:
            user = entry.get("user") if isinstance(entry, dict) else None
            plugin = user.get("exec") if isinstance(user, dict) else None
            command = plugin.get("command") if isinstance(plugin, dict) else None
            if isinstance(command, str) and command:
                found.append((str(entry.get("name", "")), command))
    return found


def _runnable(command: str, kubeconfig: str) -> bool:
    """client-go's lookup: a command with a slash is relative to the kubeconfig's folder,
    any other is looked up on PATH."""
    if "/" in command:
        base = Path(kubeconfig.split(os.pathsep, maxsplit=1)[0]).expanduser().parent
        return (base / command).is_file() or Path(command).is_file()
    return shutil.which(command) is not None
