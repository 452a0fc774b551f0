"""`python -m course compare 03 [NOTEBOOK]`: your answer to each exercise of a lab beside the solution's,
and whether the exercise's checks pass on your code right now.

`python -m course check 03 [NOTEBOOK]` runs only the checks, from the terminal: for learners who edit
in an editor. It prints each exercise's result and exits non-zero when any has not passed.

Both read the notebook as saved on disk (save it first), `labs/NN_*.ipynb` unless you name another,
and load each answer the way the tests do: the notebook's setup cells and the exercise's cell, never the
rest. When `labs/NN_*.ipynb` is still untouched but a newer notebook of the same lab sits next to it
(`03_postgres_queue-Copy1.ipynb`, say), they tell you, so you do not check the wrong file.
"""

from __future__ import annotations

import argparse
import shutil
import textwrap
import time
from pathlib import Path

from course.errors import CourseError
from course.grading import checker, manifest, run_check
from course.grading.notebooks import LABS, SOLUTIONS, exercise_cells, exercise_of, load_answers
from course.grading.stubs import lab_notebook


def side_by_side(left: str, right: str, width: int) -> str:
    column = (width - 3) // 2
    def lines(text):
        out = []
        for line in text.splitlines() or [""]:
            out.extend(textwrap.wrap(line, column, drop_whitespace=False, replace_whitespace=False) or [""])
        return out
    a, b = lines(left), lines(right)
    a += [""] * (len(b) - len(a))
    b += [""] * (len(a) - len(b))
    return "\n".join(f"{x:<{column}} | {y}" for x, y in zip(a, b))


def untouched(path: Path, lab: manifest.Lab) -> bool:
    """Every exercise cell of this notebook is still the lab's stub."""
    stubs = {exercise_of(c): c.source for c in lab_notebook(SOLUTIONS / lab.notebook).cells
             if c.cell_type == "code" and exercise_of(c)}
    try:
        mine = exercise_cells(path)
    except Exception:  # not a notebook: it is not untouched, and loading will say what is wrong
        return False
    return all(mine.get(exercise_id) == source for exercise_id, source in stubs.items())


def newer_copies(path: Path, lab: manifest.Lab) -> list[Path]:
    """Notebooks of the same lab, saved after `path`: beside it, or anywhere in labs/ when it is there."""
    folder = path.parent.resolve()
    pattern = f"{lab.id}*.ipynb"
    candidates = folder.rglob(pattern) if folder == LABS.resolve() else folder.glob(pattern)
    mtime = path.stat().st_mtime
    return sorted((p for p in candidates
                   if p.resolve() != path.resolve() and p.stat().st_mtime > mtime
                   and not any(part.startswith(".") for part in p.relative_to(folder).parts)),
                  key=lambda p: p.stat().st_mtime, reverse=True)


def notebook_for(lab: manifest.Lab, given: Path | None, command: str) -> tuple[Path, str | None]:
    """The notebook to read, and a warning when it is untouched but a newer copy exists."""
    path = given if given is not None else LABS / lab.notebook
    if not path.exists():
        raise CourseError(f"There is no notebook {path}.")
    if path.is_dir():
        raise CourseError(f"{path} is a folder: name the notebook, e.g. {path / lab.notebook}.")
    warning = None
    if untouched(path, lab):
        copies = newer_copies(path, lab)
        if copies:
            newest = copies[0]
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(newest.stat().st_mtime))
            warning = (f"Note: {_shown(path)} is untouched (every exercise is still a stub), but "
                       f"{_shown(newest)} is newer (saved {when}). Is your work there? Then run:\n"
                       f"    python -m course {command} {lab.id} {_shown(newest)}")
    return path, warning


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=description,
                                     epilog="\n".join(__doc__.splitlines()[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("lab", help="the lab's number, e.g. 03")
    parser.add_argument("notebook", nargs="?", type=Path,
                        help="the notebook to read (default: labs/NN_*.ipynb of this checkout)")
    return parser


def main(argv: list[str]) -> int:
    parser = _parser("python -m course compare", __doc__.splitlines()[0].split(": ", 1)[1])
    parser.add_argument("--no-run", action="store_true", help="only show the code; do not run the checks")
    args = parser.parse_args(argv)
    lab = manifest.load().lab(args.lab)
    mine_path, warning = notebook_for(lab, args.notebook, "compare")
    solution_path = SOLUTIONS / lab.notebook
    if warning:
        print(warning)
    mine, solution = exercise_cells(mine_path), exercise_cells(solution_path)
    width = shutil.get_terminal_size((160, 40)).columns
    label = "labs/" if args.notebook is None else mine_path.name
    results = {} if args.no_run else {
        o.exercise: o for o in checker.check_in_a_process_of_its_own(mine_path, [e.id for e in lab.exercises])}
    for exercise in lab.exercises:
        print(f"\n=== {exercise.id}: {exercise.title} " + "=" * max(0, width - len(exercise.id) - len(exercise.title) - 8))
        yours, theirs = mine.get(exercise.id, "(no cell for this exercise in your notebook)"), solution[exercise.id]
        if width >= 120:
            print(side_by_side(f"YOUR CODE ({label})\n" + yours, "THE SOLUTION (solutions/)\n" + theirs, width))
        else:
            print(f"--- your code ({label})\n" + yours + "\n--- the solution (solutions/)\n" + theirs)
        if exercise.id in results:
            print("checks on your code: " + _said(results[exercise.id].event()))
    if warning:
        print("\n" + warning)
    return 0


def _said(outcome: dict) -> str:
    """An exercise's report, as `check` prints it (or why there is none)."""
    if outcome["report"]:
        return outcome["report"]
    if outcome["status"] == "could not load":
        return f"{outcome['exercise']}: could not load your answer ({outcome['detail']})"
    return f"{outcome['exercise']}: {outcome['status']} ({outcome['detail']})"


# 14.exam's workers run the pieces of the learner's other notebooks, which no answer host holds yet: on the
# learner's own machine `course check 14` runs it in this process, as the notebook's own check() does (the
# class grader does not grade it: see checks/lab14.py).
CHECKED_HERE = frozenset({"14.exam"})


def _checked_here(path: Path, exercise_id: str, seed: int | None) -> checker.Outcome:
    try:
        report = run_check(exercise_id, seed=seed, **load_answers(path, exercise_id))
    except Exception as error:  # noqa: BLE001 — the learner's cell may not even run outside the notebook
        return checker.Outcome(exercise_id, "could not load", detail=f"{type(error).__name__}: {error}", seed=seed)
    return checker.outcome_of(exercise_id, report, seed)


def _print_result(event: dict) -> None:
    if event["event"] == "result":
        print(_said(event) + "\n", flush=True)


def check_main(argv: list[str]) -> int:
    """`python -m course check 03 [NOTEBOOK]`: every exercise's checks on the saved notebook."""
    from course.grading import progress_file

    parser = _parser("python -m course check",
                     "run a lab's checks on your saved notebook, from the terminal (exit status 1 if any "
                     "exercise has not passed)")
    parser.add_argument("--exercise", metavar="NN.name", help="only this exercise, e.g. 03.claim")
    parser.add_argument("--seed", type=int, help="replay a run of checks that use random faults")
    args = parser.parse_args(argv)
    lab_id = args.lab.split(".")[0]
    exercise_only = args.exercise or (args.lab if "." in args.lab else None)
    lab = manifest.load().lab(lab_id)
    path, warning = notebook_for(lab, args.notebook, "check")
    if warning:
        print(warning + "\n")
    exercises = [manifest.load().exercise(exercise_only)] if exercise_only else list(lab.exercises)
    print(f"Checking {_shown(path)} (as saved on disk), lab {lab.id}: {lab.title}\n")
    outcomes = []
    elsewhere = [e.id for e in exercises if e.id not in CHECKED_HERE]
    here = []
    for exercise_id in (e.id for e in exercises if e.id in CHECKED_HERE):
        here.append(_checked_here(path, exercise_id, args.seed))
        _print_result(here[-1].event())
    checked = checker.check_in_a_process_of_its_own(path, elsewhere, args.seed, emit=_print_result) if elsewhere else []
    for outcome in here + checked:
        if outcome.status in ("passed", "failed", "not started"):
            progress_file.record(outcome.exercise, outcome.status, *outcome.checks)
        outcomes.append((outcome.exercise, outcome.status))
    done = sum(status == "passed" for _, status in outcomes)
    print(f"{done} of {len(outcomes)} exercises passed: "
          + ", ".join(f"{exercise_id} {status}" for exercise_id, status in outcomes))
    if warning:
        print("\n" + warning)
    return 0 if done == len(outcomes) else 1
