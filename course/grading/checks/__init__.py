"""The checks of every exercise, one module per lab (lab00.py, lab03.py, ...).

A module registers its checks with `@exercise_check("03.claim")`; modules are imported only when one
of their exercises is checked, so a lab's checks never slow down another lab.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

_checks: dict[str, Callable] = {}


def exercise_check(exercise_id: str):
    def register(fn: Callable) -> Callable:
        _checks[exercise_id] = fn
        return fn

    return register


def find(exercise_id: str) -> Callable:
    lab_id = exercise_id.split(".")[0]
    importlib.import_module(f"{__name__}.lab{lab_id}")
    try:
        return _checks[exercise_id]
    except KeyError:
        raise LookupError(f"course/grading/checks/lab{lab_id}.py registers no check for {exercise_id!r}") from None
