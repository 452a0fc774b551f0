"""The one reader of the course's notebooks: their cells by role, their code as Python, and an exercise's
answers loaded outside Jupyter.

    exercise_of(cell)                   the exercise a code cell answers ("03.claim"), from its metadata
    cells(path)                         a notebook's code cells by role: setup, exercises, demos
    exercise_cells(path), setup_source(path)    the two roles `compare`, `grade` and the tests read
    python_source(path)                 every code cell as one Python source (what the layout test parses)
    without_magics(source)              a cell's source with its IPython magics and shell lines blanked
    running_as_notebook()               while cells run outside Jupyter: their module, as Jupyter's __main__
    answers_from(sources, exercise_id, where)   run cells in a fresh namespace, return the answers
    load_answers(path, exercise_id)     the notebook's setup cells and one exercise cell, run (in the
                                        notebook's folder, as Jupyter runs them): its answers

An exercise cell must work after the notebook's `setup`-tagged cells alone (imports, constants): that
is what lets `compare`, `grade`, the mutation sweep and the test suite load a learner's answer, or the
solution, without running the whole lab. The build, the grader, the sweep and the layout test all read
notebooks through here, so a cell means the same to each of them.
"""

from __future__ import annotations

import contextlib
import io
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat

from course.grading import manifest

ROOT = Path(__file__).resolve().parents[2]  # the checkout: solutions/ (the source) and labs/ (built)
SOLUTIONS, LABS = ROOT / "solutions", ROOT / "labs"
SHELL_PREFIXES = ("%", "!")  # an IPython magic or a shell line: not Python, and never an answer


def exercise_of(cell) -> str | None:
    """The exercise a cell answers, from its metadata (`"course": {"exercise": "03.claim"}`), or None. A
    notebook's metadata is free-form: anything else there (a list, a number, "course" as a string) is no
    exercise, never an error."""
    metadata = cell.get("metadata") if isinstance(cell, dict) else None
    course = metadata.get("course") if isinstance(metadata, dict) else None
    exercise = course.get("exercise") if isinstance(course, dict) else None
    return exercise if isinstance(exercise, str) and exercise else None


def without_magics(source: str) -> str:
    """The cell's source with each magic or shell line left blank, so line numbers still match the cell."""
    return "\n".join("" if line.lstrip().startswith(SHELL_PREFIXES) else line for line in source.splitlines())


@dataclass(frozen=True)
class Cells:
    """A notebook's code cells by role, each as its source."""

    setup: list[str]  # tagged `setup`: imports and constants, all an exercise cell needs
    exercises: dict[str, str]  # exercise id -> the (last) cell that answers it
    demos: list[str]  # every other code cell


def cells(path: Path) -> Cells:
    notebook = nbformat.read(path, as_version=4)
    setup, exercises, demos = [], {}, []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        if "setup" in cell.metadata.get("tags", []):
            setup.append(cell.source)
        elif exercise_of(cell):
            exercises[exercise_of(cell)] = cell.source
        else:
            demos.append(cell.source)
    return Cells(setup, exercises, demos)


def exercise_cells(path: Path) -> dict[str, str]:
    """exercise id -> source of the (last) cell that answers it."""
    return cells(path).exercises


def setup_source(path: Path) -> list[str]:
    return cells(path).setup


def python_source(path: Path) -> str:
    """Every code cell of the notebook as one Python source, magics and shell lines blanked."""
    notebook = nbformat.read(path, as_version=4)
    return "\n\n".join(without_magics(c.source) for c in notebook.cells if c.cell_type == "code")


NOTEBOOK_MODULE = "__notebook__"  # what a notebook's cells run as outside Jupyter (Jupyter's is __main__)


@contextlib.contextmanager
def running_as_notebook():
    """While a notebook's cells run outside Jupyter, their module name is a module in sys.modules, as
    Jupyter's __main__ is: a @dataclass (which reads sys.modules[cls.__module__]) failed to load from
    `course check` and in class grading, while the same cell ran in Jupyter (round f4, f4b12). It is taken
    out again afterwards, so cloudpickle still ships the answers by value to worker processes, which
    cannot import a notebook."""
    before = sys.modules.get(NOTEBOOK_MODULE)
    sys.modules[NOTEBOOK_MODULE] = types.ModuleType(NOTEBOOK_MODULE)
    try:
        yield
    finally:
        if before is None:
            sys.modules.pop(NOTEBOOK_MODULE, None)
        else:
            sys.modules[NOTEBOOK_MODULE] = before


def answers_from(sources: list[str], exercise_id: str, where: str) -> dict[str, Any]:
    """Run these cells, in order, in a namespace of their own (their printing swallowed); return the
    answers the exercise's check reads. `where` names the cells in a traceback. A cell's error propagates."""
    exercise = manifest.load().exercise(exercise_id)
    namespace: dict[str, Any] = {"__name__": NOTEBOOK_MODULE}
    with contextlib.redirect_stdout(io.StringIO()), running_as_notebook():
        for index, source in enumerate(sources):
            exec(compile(without_magics(source), f"<{where} cell {index}>", "exec"), namespace)
    return {name: namespace[name] for name in exercise.answers if name in namespace}


def load_answers(path: Path, exercise_id: str) -> dict[str, Any]:
    """Run the notebook's set-up cells and one exercise cell; return the answers the check reads."""
    manifest.load().exercise(exercise_id)  # an unknown id says so before a missing cell does
    found = cells(path)
    source = found.exercises.get(exercise_id)
    if source is None:
        raise LookupError(f"{path.name} has no cell for exercise {exercise_id}")
    # In the notebook's own folder, as Jupyter runs a notebook: lab 14's answer reads its sibling notebooks.
    with contextlib.chdir(path.parent):
        return answers_from([*found.setup, source], exercise_id, f"{path.name} {exercise_id}")
