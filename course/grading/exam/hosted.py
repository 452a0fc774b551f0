"""The exam's pieces when a class is graded: each from the student's own notebook of its lab (03, 04, 07,
handed in beside the exam), run in an answer host of its own, in the notebook's sandbox.

    with hosted_pieces(companions, start_host) as pieces:   # companions: lab notebook name -> its text
        run_check("14.exam", pieces=pieces)

In the learner's kernel `exam.assemble(".")` loads the pieces from the notebooks beside the exam (pieces.py).
The class grader's checker runs no student code: it reads the notebooks' text as the grader read it before
any code ran, starts one answer host per notebook (its setup cells, then each piece's cell), and holds each
piece as a boundary.trusted.Answer. The exam's workers get them pickled by those hosts, which marks their
spec: only the notebook's confinement starts them, sandboxed (processes.spawn). A piece is missing for the
reasons pieces.py gives (no notebook, no cell, the lab's stub, a cell that does not run); never replaced by
the reference. A piece pasted into the exam notebook instead is not seen here: the exam notebook's own
`pieces` is a value of its sandbox, opaque to the checker (README, "Grading a class").
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from course.grading import manifest
from course.grading.exam.pieces import PIECES, Pieces, _stub_source


def notebooks_needed() -> dict[str, str]:
    """lab id -> the notebook file name its pieces come from (03_postgres_queue.ipynb, ...)."""
    course = manifest.load()
    return {lab: course.lab(lab).notebook for lab in sorted({eid.split(".")[0] for eid in PIECES})}


@contextlib.contextmanager
def hosted_pieces(companions: dict[str, str | None], start_host: Callable[[], object]) -> Iterator[Pieces]:
    """The student's pieces from `companions` (a lab notebook's file name -> its text, None when it could not
    be read), each an Answer of a host start_host() started; the hosts are stopped on leaving."""
    from course.grading.boundary.serving import AnswerProcessGone
    from course.grading.boundary.trusted import Answer, LoadError
    from course.grading.checker import Notebook

    pieces, hosts = Pieces(), []
    try:
        for lab, name in notebooks_needed().items():
            wanted = [eid for eid in PIECES if eid.startswith(f"{lab}.")]
            text = companions.get(name)
            if name not in companions:
                pieces.missing.update({eid: f"no notebook {name} was handed in beside the exam" for eid in wanted})
                continue
            if text is None:
                pieces.missing.update({eid: f"{name} could not be read" for eid in wanted})
                continue
            try:
                notebook = Notebook.parse(text, name)
            except Exception as error:  # noqa: BLE001 — a file the student handed in: anything may be wrong with it
                pieces.missing.update({eid: f"{name} is not a notebook ({type(error).__name__})" for eid in wanted})
                continue
            cells = {}
            for eid in wanted:
                source = notebook.cells.get(eid)
                if source is None:
                    pieces.missing[eid] = f"{name} has no cell for {eid}"
                elif source == _stub_source(eid):
                    pieces.missing[eid] = f"{name} still has the lab's stub for {eid}"
                else:
                    cells[eid] = source
            if not cells:
                continue
            host = start_host()
            hosts.append(host)
            try:
                host.setup(name, notebook.setup)
            except (LoadError, AnswerProcessGone) as error:
                why = error.error if isinstance(error, LoadError) else "its process ended"
                pieces.missing.update({eid: f"{name}'s setup cells do not run: {_line(why)}" for eid in cells})
                continue
            for eid, source in cells.items():
                function = PIECES[eid]
                try:
                    found = host.exercise(eid, source, [function]).get(function)
                except (LoadError, AnswerProcessGone) as error:
                    why = error.error if isinstance(error, LoadError) else "its process ended"
                    pieces.missing[eid] = f"{name}'s cell for {eid} does not run: {_line(why)}"
                    continue
                if not isinstance(found, Answer):
                    pieces.missing[eid] = f"{name}'s cell for {eid} defines no function `{function}`"
                    continue
                pieces.functions[eid], pieces.origin[eid] = found, name
        yield pieces
    finally:
        for host in hosts:
            host.stop()


def _line(error) -> str:
    from course.errors import first_line

    return f"{type(error).__name__}: {first_line(str(error), limit=200)}" if isinstance(error, BaseException) else str(error)
