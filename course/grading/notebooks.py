"""Reading exercises out of notebooks, so the same check can run outside Jupyter.

An exercise cell must work after the notebook's `setup`-tagged cells alone (imports, constants): that
is what lets `compare` and the test suite load a learner's answer, or the solution, without running the
whole lab.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import nbformat

from course.grading import manifest
from course.grading.build import exercise_of


def exercise_cells(path: Path) -> dict[str, str]:
    """exercise id -> source of the (last) cell that answers it."""
    notebook = nbformat.read(path, as_version=4)
    return {exercise_of(c): c.source for c in notebook.cells if c.cell_type == "code" and exercise_of(c)}


def setup_source(path: Path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    return [c.source for c in notebook.cells if c.cell_type == "code" and "setup" in c.metadata.get("tags", [])]


def load_answers(path: Path, exercise_id: str) -> dict[str, Any]:
    """Run the notebook's set-up cells and one exercise cell; return the answers the check reads."""
    exercise = manifest.load().exercise(exercise_id)
    source = exercise_cells(path).get(exercise_id)
    if source is None:
        raise LookupError(f"{path.name} has no cell for exercise {exercise_id}")
    namespace: dict[str, Any] = {"__name__": "__notebook__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for index, cell in enumerate([*setup_source(path), source]):
            exec(compile(_without_magics(cell), f"<{path.name} {exercise_id} cell {index}>", "exec"), namespace)
    return {name: namespace[name] for name in exercise.answers if name in namespace}


def _without_magics(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!")))
