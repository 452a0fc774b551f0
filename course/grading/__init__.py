"""Checks, hints and progress, for use in the notebooks:

    from course.grading import check, hint, progress

    check("03.claim")      # runs the exercise's checks on the `claim` you defined above, prints the result
    hint("03.claim")       # the next hint
    progress()             # what you have passed so far

`reveal("03.predict_x", "what the run measured")` shows a prediction made before a demo beside what
the demo measured, then checks it (course/grading/predictions.py).

Also public, for the labs that show faults: `faults` (the fault injector: kill a worker at a chosen
moment, print a replayable seed and a per-job timeline) and `ScratchSchema` (a schema of a check's or a
lab's own, for it to work on). Everything else in course.grading is the grader's own; a notebook never
imports it (tests/authoring/test_layout.py).

A check never raises into the notebook: a failing or unfinished exercise prints why, and the lab goes on.
The checks themselves live in course/grading/checks/, so the test suite runs exactly the same ones.

What needs a database driver (the checks, the trial, progress) is imported when first used, so reading
the manifest (`python -m course map`, `hint`) starts nothing and imports no psycopg.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from course.errors import CourseError
from course.grading import hints, manifest
from course.grading.predictions import reveal

__all__ = ["check", "hint", "progress", "reveal", "run_check", "course_map", "Report", "ScratchSchema", "faults",
           "exam"]
_LATER = {"Report": "course.grading.report", "ScratchSchema": "course.grading.scratch"}


def __getattr__(name: str):
    """The public names whose modules need the database driver, imported on first use."""
    if name in _LATER:
        return getattr(importlib.import_module(_LATER[name]), name)
    if name in ("faults", "exam"):
        return importlib.import_module(f"course.grading.{name}")
    raise AttributeError(f"module 'course.grading' has no attribute {name!r}")


def run_check(exercise_id: str, *, seed: int | None = None, **answers: Any) -> "Report":
    """Run an exercise's checks on the given answers and return the report (the test suite uses this)."""
    from course.grading.checks import find
    from course.grading.report import Report
    from course.grading.trial import NotStarted, Stop, Trial

    exercise = manifest.load().exercise(exercise_id)
    missing = [name for name in exercise.answers if name not in answers]
    if missing:
        return Report(exercise_id, (), problem=_not_defined(missing))
    check_fn = find(exercise_id)
    trial = Trial(exercise_id, seed=seed)
    kwargs = {name: answers[name] for name in exercise.answers}
    if "seed" in inspect.signature(check_fn).parameters:
        kwargs["seed"] = seed
    try:
        check_fn(trial, **kwargs)
    except (Stop, NotStarted):
        pass
    except CourseError as error:  # the database is down, a service would not start: say so plainly
        return Report(exercise_id, tuple(trial.results), problem=str(error))
    except Exception as error:  # a bug in learner code the check did not wrap, or in the check itself
        trial.results.append(_crash(error))
    finally:
        trial.close()
    return Report(exercise_id, tuple(trial.results), not_started=trial.not_started, seed=trial.seed,
                  notes=tuple(trial.notes))


def exercise_and_answers(exercise_id: str, answers: dict[str, Any], caller: dict[str, Any]):
    """The exercise, with `answers` completed from the notebook's globals (`caller`) by the names it asks
    for; None, said in one line, when there is no such exercise. For check() and reveal()."""
    try:
        exercise = manifest.load().exercise(exercise_id)
    except manifest.UnknownExercise as error:
        print(error)
        return None
    for name in exercise.answers:
        if name not in answers and name in caller:
            answers[name] = caller[name]
    return exercise


def check(exercise_id: str, seed: int | None = None, **answers: Any) -> None:
    """Check an exercise. Answers are read from the notebook by the names the exercise asks for."""
    if exercise_and_answers(exercise_id, answers, inspect.currentframe().f_back.f_globals) is None:
        return
    report = run_check(exercise_id, seed=seed, **answers)
    if report.status != "problem":
        from course.grading import progress_file

        passed = sum(r.passed for r in report.results)
        progress_file.record(exercise_id, report.status, passed, len(report.results))
    print(report.render())


def hint(exercise_id: str, number: int | None = None) -> None:
    try:
        print(hints.hint(exercise_id, number))
    except manifest.UnknownExercise as error:
        print(error)


def progress(lab_id: str | None = None) -> None:
    from course.grading import progress_file

    print(progress_file.table(lab_id))


def course_map() -> None:
    """The labs in order, from the manifest."""
    for lab in manifest.load().labs:
        exercises = ", ".join(e.id for e in lab.exercises)
        print(f"{lab.id}  {lab.title}  (~{lab.minutes} min)\n      exercises: {exercises}")


def _not_defined(names: list[str]) -> str:
    listed = ", ".join(f"`{n}`" for n in names)
    verb = "is" if len(names) == 1 else "are"
    return (f"{listed} {verb} not defined yet. Run the exercise cell above (the one that defines "
            f"{listed}), then run this check again.")


def _crash(error: Exception):
    from course.grading.faults import WorkerCrashed
    from course.grading.trial import Result, checks_line, describe

    if isinstance(error, WorkerCrashed):  # the learner's code ended its worker process: their failure
        return Result("your code runs in a worker process without ending it", False, note=str(error))

    return Result("the check ran to the end", False,
                  note=f"it stopped on {describe(error)}\n(if the line is not yours, tell the course authors"
                       f"{checks_line(error)})")
