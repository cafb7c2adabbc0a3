"""Every exception class kubesched defines is a KubeschedError (`kubesched.errors`), the
fatal, user-facing ones FatalErrors; no class name is used twice."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

import kubesched
from kubesched.errors import FatalError, KubeschedError


def _exception_classes() -> list[type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(kubesched.__path__, prefix="kubesched."):
        if module_info.name.endswith("__main__"):
            continue
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found[f"{value.__module__}.{value.__qualname__}"] = value
    return list(found.values())


def test_every_exception_class_is_a_kubesched_error() -> None:
    classes = _exception_classes()
    assert len(classes) > 40
    outside = [c.__qualname__ for c in classes if not issubclass(c, KubeschedError)]
    assert not outside


def test_no_two_exception_classes_share_a_name() -> None:
    by_name: defaultdict[str, list[str]] = defaultdict(list)
    for cls in _exception_classes():
        by_name[cls.__name__].append(cls.__module__)
    assert {name: where for name, where in by_name.items() if len(where) > 1} == {}


def test_the_command_line_treats_only_fatal_errors_as_fatal() -> None:
    from kubesched.cli.run import FATAL_ERRORS  # noqa: PLC0415 - the command line's own table
    from kubesched.kube.errors import ApiError  # noqa: PLC0415

    assert (FatalError,) == FATAL_ERRORS
    assert not issubclass(ApiError, FatalError)
