"""One notebook's exercises, checked by a process that runs none of the notebook's code.

`python -m course.grading.checker -` is what the grader starts for each notebook (and again for the
exercises left when one hung or crashed), its spec on stdin: the notebook's text as the grader read it
before any student's code ran (a classmate's cell cannot change it on disk under us), the exercises,
their seeds. It takes the notebook's cells from that text, starts the answer host
(boundary/host.py) in the notebook's confinement, runs the setup cells there once, then for each
exercise its cell and its checks; every answer the checks call crosses the boundary. What it found
goes to the grader as JSON lines on a pipe only the two of them hold (SPEC's `events_fd`):

    {"event": "start", "exercise": ..., "phase": ...}      an exercise begins (or a phase of it)
    {"event": "phase", "exercise": ..., "phase": ...}
    {"event": "result", "exercise": ..., "status": ..., "checks": [passed, total], "failing": [...], ...}
    {"event": "leftovers", "processes": [[pid, command], ...]}  still running once the notebook was done

`course check NN` runs the same loop (check_notebook) in its own process, printing each report.

This process is the one that decides: it is made non-dumpable (no other process of this user can
ptrace it or read its memory or its descriptors through /proc), and nothing the notebook's processes
write is read back except through the boundary and the checks' own observations.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from course.errors import first_line
from course.grading import manifest, run_check
from course.grading.confine import Confinement
from course.grading.trial import NOTHING

SETUP_PHASE = "running the setup cells"
EXAM = "14.exam"  # its answers are the pieces of the notebooks handed in beside it (exam/hosted.py)


@dataclass
class Outcome:
    """What happened to one exercise: the gradebook's row, before the grader adds who and where."""

    exercise: str
    status: str  # passed, failed, not started, no cell, could not load, crashed, problem
    passed: bool = False
    checks: tuple[int, int] = (0, 0)  # checks passed, of checks made
    failing: list[dict] = field(default_factory=list)  # every failing check: name, and why in a line
    detail: str = ""
    seed: int | None = None
    seconds: float = 0.0
    report: str = ""  # the report as the learner would read it (for the feedback file)

    def event(self) -> dict:
        return {"event": "result", "exercise": self.exercise, "status": self.status, "passed": self.passed,
                "checks": list(self.checks), "failing": self.failing, "detail": self.detail, "seed": self.seed,
                "seconds": round(self.seconds, 3), "report": self.report[-20_000:]}


@dataclass
class Notebook:
    name: str
    setup: list[str]
    cells: dict[str, str]

    @classmethod
    def read(cls, path: Path) -> "Notebook":
        return cls.parse(path.read_text(encoding="utf-8"), path.name)

    @classmethod
    def parse(cls, text: str, name: str) -> "Notebook":
        """The setup cells and the exercise cells of a notebook's text (nothing of it runs here)."""
        import nbformat

        from course.grading.notebooks import exercise_of

        cells = [c for c in nbformat.reads(text, as_version=4).cells if c.cell_type == "code"]
        return cls(name, [c.source for c in cells if "setup" in c.metadata.get("tags", [])],
                   {exercise_of(c): c.source for c in cells if exercise_of(c)})


def check_notebook(notebook: Notebook, exercises: list[str], seeds: dict[str, int | None],
                   confinement: Confinement, log: Path, emit: Callable[[dict], None],
                   companions: dict[str, str | None] | None = None) -> list[Outcome]:
    """Each exercise's checks on this notebook's answers, in order; emit() hears each step. `companions`:
    the student's notebooks of other labs (file name -> text) that an exercise loads answers from (the
    exam's pieces, exam/hosted.py), each run in a host of its own in the same confinement."""
    from course.grading.boundary.serving import AnswerProcessGone
    from course.grading.boundary.trusted import LoadError

    course = manifest.load()
    outcomes: list[Outcome] = []
    host = None
    setup_error: str | None = None
    try:
        for exercise_id in exercises:
            exercise = course.exercise(exercise_id)
            started = time.monotonic()
            seed = seeds.get(exercise_id)
            source = notebook.cells.get(exercise_id)
            if source is None:
                emit({"event": "start", "exercise": exercise_id, "phase": "reading the notebook"})
                outcome = Outcome(exercise_id, "no cell", detail=f"{notebook.name} has no cell for exercise {exercise_id}",
                                  seed=seed)
                outcomes.append(outcome)
                emit(outcome.event())
                continue
            emit({"event": "start", "exercise": exercise_id, "phase": "loading your cell"})
            if host is None or not host.alive():
                if host is not None:
                    host.stop()
                emit({"event": "phase", "exercise": exercise_id, "phase": SETUP_PHASE})
                host = confinement.start_host(log)
                try:
                    host.setup(notebook.name, notebook.setup)
                    setup_error = None
                    started = time.monotonic()  # an exercise's seconds are its own: the setup cells ran for all
                except LoadError as error:
                    setup_error = f"the setup cells raised {_described(error.error)}"
                except AnswerProcessGone:
                    setup_error = f"the notebook's process ended while {SETUP_PHASE} ({_exit(host)})"
            if setup_error:
                outcome = Outcome(exercise_id, "could not load", detail=setup_error, seed=seed,
                                  seconds=time.monotonic() - started)
                outcomes.append(outcome)
                emit(outcome.event())
                continue
            emit({"event": "phase", "exercise": exercise_id, "phase": "loading your cell"})
            try:
                answers = host.exercise(exercise_id, source, list(exercise.answers))
            except LoadError as error:
                outcome = Outcome(exercise_id, "could not load", seed=seed, seconds=time.monotonic() - started,
                                  detail=_described(error.error))
            except AnswerProcessGone:
                outcome = Outcome(exercise_id, "crashed", seed=seed, seconds=time.monotonic() - started,
                                  detail=f"the notebook's process ended while loading its cell ({_exit(host)})")
            except Exception as error:  # noqa: BLE001 — whatever its process sent, this exercise's row, not our exit
                outcome = Outcome(exercise_id, "could not load", seed=seed, seconds=time.monotonic() - started,
                                  detail=f"loading its cell broke the grading protocol: {_described(error)}")
            else:
                missing = [name for name in exercise.answers if name not in answers]
                if missing:
                    outcome = Outcome(exercise_id, "could not load", seed=seed, seconds=time.monotonic() - started,
                                      detail=f"the exercise's cell defines no {', '.join(f'`{n}`' for n in missing)}")
                else:
                    emit({"event": "phase", "exercise": exercise_id, "phase": "running the checks"})
                    beside = None if companions is None else (companions, lambda: confinement.start_host(log))
                    outcome = _checked(exercise_id, answers, seed, host, beside)
                    outcome.seconds = time.monotonic() - started
            outcomes.append(outcome)
            emit(outcome.event())
    finally:
        if host is not None:
            host.stop()
    return outcomes


def _checked(exercise_id: str, answers: dict, seed: int | None, host, beside=None) -> Outcome:
    try:
        with _answers_beside(exercise_id, answers, beside) as answers:
            report = run_check(exercise_id, seed=seed, **answers)
    except Exception as error:  # noqa: BLE001 — the checks' own failure: a row that says so
        return Outcome(exercise_id, "crashed" if notebooks_doing(error) else "problem", seed=seed,
                       detail=f"the checks stopped on {type(error).__name__}: {error}")
    if not host.alive():
        return Outcome(exercise_id, "crashed", seed=report.seed if report.seed is not None else seed,
                       detail=f"the notebook's process ended during the checks ({_exit(host)})",
                       report=report.render())
    return outcome_of(exercise_id, report, seed)


@contextlib.contextmanager
def _answers_beside(exercise_id: str, answers: dict, beside):
    """The answers, with what an exercise loads from the notebooks handed in beside it: 14.exam's pieces
    (the exam notebook's own `pieces` is a value of its sandbox, opaque here). Their hosts end on leaving."""
    if exercise_id != EXAM or beside is None:
        yield answers
        return
    from course.grading.exam.hosted import hosted_pieces

    companions, start_host = beside
    with hosted_pieces(companions, start_host) as pieces:
        yield {**answers, "pieces": pieces}


def outcome_of(exercise_id: str, report, seed: int | None) -> Outcome:
    """A report as one exercise's row: its status, checks passed of made, every failing check and why."""
    failing = [{"name": r.name, "why": _why(r)} for r in report.results if not r.passed and r.reached]
    detail = _one_line(report.problem) or report.not_started or (failing[0]["why"] if failing else "")
    return Outcome(exercise_id, report.status, passed=report.passed,
                   checks=(sum(r.passed for r in report.results), len(report.results)), failing=failing,
                   detail=detail, seed=report.seed if report.seed is not None else seed, report=report.render())


def notebooks_doing(error: BaseException) -> bool:
    """Did the checks stop because of what the notebook did to the database (its role at its connection
    limit: the checks log in as that role too)? Then the row is the notebook's, not the grader's problem."""
    return "too many connections for role" in str(error)


def _why(result) -> str:
    """What the gradebook says of a failed check: its note, or what the answer gave when there is none (a
    row that says only "failed" sends the instructor to the notebook for what one line can say)."""
    if result.note:
        return first_line(result.note, limit=300)
    return first_line(f"got {result.got}", limit=300) if result.got is not NOTHING else ""


def _described(error: BaseException) -> str:
    where = getattr(error, "__boundary__", None)
    line = f" ({where.line})" if where is not None and where.line else ""
    limit = "memory limit: " if isinstance(error, MemoryError) else ""  # the sandbox's RLIMIT_AS
    return f"{limit}{type(error).__name__}: {first_line(str(error), limit=300)}{line}"


def _exit(host) -> str:
    """How the answer host ended: its channel closes a moment before the kernel reports its exit."""
    try:
        code = host.process.wait(5)
    except subprocess.TimeoutExpired:
        return "still running"
    if code == -signal.SIGXCPU:  # the sandbox's RLIMIT_CPU
        return "time limit: it used all the CPU time a notebook's process may (SIGXCPU)"
    return f"killed by signal {-code}" if code < 0 else f"exit code {code}"


def _one_line(text: str | None, limit: int = 300) -> str:
    line = " / ".join(" ".join(part.split()) for part in (text or "").splitlines() if part.strip())
    return line if len(line) <= limit else line[: limit - 1] + "…"


# -- the process the grader starts ------------------------------------------------------------------------


def not_dumpable() -> None:
    """Linux: no process of this user may ptrace this one, or open its memory or descriptors in /proc."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0)  # PR_SET_DUMPABLE, 0


def main(argv: list[str]) -> int:
    from course.infra import processes

    not_dumpable()
    spec = json.loads(sys.stdin.read() if argv[0] == "-" else Path(argv[0]).read_text())
    events = os.fdopen(int(spec["events_fd"]), "w", buffering=1)

    def emit(event: dict) -> None:
        events.write(json.dumps(event) + "\n")

    confinement = Confinement(Path(spec["scratch"]), conninfo=os.environ.get("DATABASE_URL"), token=spec.get("token"),
                              sandboxed=bool(spec.get("sandboxed")), secret_paths=spec.get("secrets", []))
    confinement.prelaunch(Path(spec["log"]))  # it imports while we do
    processes.confine_untrusted(confinement.launch_spec)
    try:
        notebook = Notebook.parse(spec["notebook_text"], spec["notebook_name"])
        check_notebook(notebook, spec["exercises"], spec["seeds"], confinement, Path(spec["log"]), emit,
                       companions=spec.get("companions"))
    finally:
        left = confinement.end()
        emit({"event": "leftovers", "processes": [list(p) for p in left]})
        events.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


def check_in_a_process_of_its_own(path: Path, exercises: list[str], seed: int | None = None,
                                  emit: Callable[[dict], None] = lambda event: None) -> list[Outcome]:
    """`course check` and `course compare`: this process decides, the notebook's code runs in another.
    Its output (what its cells print) goes to a log of its own, kept only while it runs."""
    import tempfile

    from course.infra import db, processes

    notebook = Notebook.read(path)
    with tempfile.TemporaryDirectory(prefix="course-check-") as scratch:
        confinement = Confinement(Path(scratch), conninfo=db.database().conninfo)
        processes.confine_untrusted(confinement.launch_spec)
        try:
            return check_notebook(notebook, exercises, {e: seed for e in exercises}, confinement,
                                  Path(scratch) / "notebook.log", emit)
        finally:
            confinement.end()
            processes.confine_untrusted(None)
