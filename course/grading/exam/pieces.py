"""The learner's own queue, in pieces: their answers to 03.claim and 03.claim_batch, 04.fenced_ack,
04.heartbeat, 07.route and 07.backoff,
loaded from their notebooks the way `course compare` loads them (each notebook's setup cells and the
exercise's cell, nothing else).

    assemble(folder, **pasted)   -> Pieces: every piece found, and every one missing with why

A piece is missing when its notebook is not in the folder, has no cell for the exercise, still holds the
lab's stub, or does not load. A missing piece is never replaced by the reference: the exam says which
and does not run. A piece may be pasted instead (`assemble(folder, claim=my_claim)`): the exam then uses
that function, and says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from course.errors import first_line
from course.grading import manifest, notebooks
from course.grading.stubs import lab_notebook

# exercise id -> the name its answer has in the learner's notebook
PIECES = {
    "03.claim": "claim",
    "03.claim_batch": "claim_batch",
    "04.fenced_ack": "ack",
    "04.heartbeat": "extend_lease",
    "07.route": "route",
    "07.backoff": "backoff",
}


@dataclass
class Pieces:
    functions: dict[str, Callable] = field(default_factory=dict)  # exercise id -> the learner's function
    missing: dict[str, str] = field(default_factory=dict)  # exercise id -> why it is missing
    origin: dict[str, str] = field(default_factory=dict)  # exercise id -> where it came from

    def __getitem__(self, exercise_id: str) -> Callable:
        return self.functions[exercise_id]

    def describe(self) -> str:
        lines = []
        for exercise_id, name in PIECES.items():
            if exercise_id in self.functions:
                lines.append(f"  {exercise_id:<14} {name:<13} from {self.origin[exercise_id]}")
            else:
                lines.append(f"  {exercise_id:<14} {name:<13} MISSING: {self.missing[exercise_id]}")
        if self.missing:
            lines.append(f"The exam needs every piece: {', '.join(self.missing)} missing, so it will not run "
                         "(it never fills a gap with the reference).")
        return "\n".join(lines)


def _stub_source(exercise_id: str) -> str:
    lab = manifest.load().lab(exercise_id.split(".")[0])
    for cell in lab_notebook(notebooks.SOLUTIONS / lab.notebook).cells:
        if cell.cell_type == "code" and notebooks.exercise_of(cell) == exercise_id:
            return cell.source
    raise LookupError(f"the lab has no cell for {exercise_id}")


def load_piece(folder: Path, exercise_id: str) -> tuple[Callable | None, str]:
    """(the function, where it came from) or (None, why it is missing)."""
    lab = manifest.load().lab(exercise_id.split(".")[0])
    path = folder / lab.notebook
    if not path.exists():
        return None, f"no notebook {lab.notebook} in {folder}"
    mine = notebooks.exercise_cells(path).get(exercise_id)
    if mine is None:
        return None, f"{lab.notebook} has no cell for {exercise_id}"
    if mine == _stub_source(exercise_id):
        return None, f"{lab.notebook} still has the lab's stub for {exercise_id}"
    try:
        answers = notebooks.load_answers(path, exercise_id)
    except Exception as error:  # the learner's cell: anything may go wrong in it
        return None, f"{lab.notebook}'s cell for {exercise_id} does not run: {first_line(error)}"
    function = answers.get(PIECES[exercise_id])
    if not callable(function):
        return None, f"{lab.notebook}'s cell for {exercise_id} defines no function `{PIECES[exercise_id]}`"
    return function, lab.notebook


def assemble(folder: Path | str = ".", **pasted: Callable) -> Pieces:
    """The learner's pieces from the notebooks in `folder` (the labs' folder); `pasted` by name (claim=,
    claim_batch=, ack=, extend_lease=, route=, backoff=) replaces that piece with a function defined in the exam's notebook."""
    folder = Path(folder)
    by_name = {name: exercise_id for exercise_id, name in PIECES.items()}
    unknown = set(pasted) - set(by_name)
    if unknown:
        raise TypeError(f"assemble() takes the pieces {', '.join(by_name)}; not {', '.join(sorted(unknown))}. "
                        "Nothing was loaded.")
    pieces = Pieces()
    for exercise_id, name in PIECES.items():
        if name in pasted:
            pieces.functions[exercise_id], pieces.origin[exercise_id] = pasted[name], "pasted in this notebook"
            continue
        function, where = load_piece(folder, exercise_id)
        if function is None:
            pieces.missing[exercise_id] = where
        else:
            pieces.functions[exercise_id], pieces.origin[exercise_id] = function, where
    return pieces


def reference() -> Pieces:
    """The course's own answers (the solutions' notebooks), for a run to set beside the learner's: never
    used in place of a missing piece of theirs."""
    pieces = assemble(notebooks.SOLUTIONS)
    pieces.origin = {exercise_id: "the course's solutions" for exercise_id in pieces.origin}
    return pieces
