"""What a compiled CEL expression is: a `Program` of nested closures over one activation
(the variables and the evaluation's `Run`), and the `Node`s the compiler builds it from."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from kubesched.dra.cel.values import CostLimitExceeded, Interrupted
from kubesched.errors import KubeschedError

Fn = Callable[[dict[str, Any]], Any]
RUN: Final = "\x00run"
"""The activation key of the per-evaluation `Run` (cost and deadline)."""
INTERRUPT_CHECK_FREQUENCY: Final = 100
"""Comprehension steps between deadline checks (apiserver's `celconfig.CheckFrequency`)."""


class CompileError(KubeschedError):
    """The expression does not compile; `str()` is cel-go's text after `compilation failed: `."""


@dataclass(slots=True)
class Run:
    """One evaluation's budget: cost units spent and the wall-clock deadline."""

    limit: int
    deadline: float | None = None
    cost: int = 0
    steps: int = 0

    def spend(self, units: int) -> None:
        self.cost += units
        if self.cost > self.limit:
            raise CostLimitExceeded
        self.steps += 1
        if (
            self.deadline is not None
            and self.steps % INTERRUPT_CHECK_FREQUENCY == 0
            and time.monotonic() > self.deadline
        ):
            raise Interrupted("deadline exceeded")


@dataclass(frozen=True, slots=True)
class Node:
    """A compiled subexpression: its closure, static type and cost."""

    fn: Fn
    type: str
    """The static CEL type ("dyn" when only the value can tell)."""
    cost: int
    """cel-go's cost units for one evaluation outside comprehension loops."""


@dataclass(frozen=True, slots=True)
class Program:
    """A compiled expression: `evaluate(variables, run)` returns its value or raises CelError."""

    expression: str
    output_type: str
    root: Fn
    base_cost: int

    def evaluate(self, variables: Mapping[str, Any], run: Run) -> Any:
        activation = dict(variables)
        activation[RUN] = run
        run.spend(self.base_cost)
        return self.root(activation)
