"""The gradebook of a graded class: one row per student, lab and exercise, as a CSV file, and a summary
per lab in markdown (pass rates, and the most common failing checks: what to re-teach).

    Row                     one student's result on one exercise (status, seconds, seed, first failing check)
    write_csv(rows, path)   gradebook.csv, one line per row, COLUMNS in order
    summary(lab, rows)      summary-NN.md: the lab's pass rates, what to re-teach, what did not run
    one_line(text)          a message fit for one CSV cell
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from course.grading import manifest

COLUMNS = ["student", "lab", "exercise", "status", "passed", "seconds", "seed", "first_failing", "notebook",
           "detail"]


@dataclass
class Row:
    student: str
    lab: str
    exercise: str
    status: str  # passed, failed, not started, no cell, could not load, timed out, crashed, unreadable, problem
    passed: bool = False
    seconds: float = 0.0
    seed: int | None = None
    first_failing: str = ""
    notebook: str = ""
    detail: str = ""


def one_line(text: str | None, limit: int = 300) -> str:
    """A message for one CSV cell: its lines joined, its whitespace collapsed, cut at `limit`."""
    line = " / ".join(" ".join(part.split()) for part in (text or "").splitlines() if part.strip()).rstrip(":")
    return line if len(line) <= limit else line[: limit - 1] + "…"


BROKEN = {"no cell", "could not load", "timed out", "crashed", "unreadable", "problem"}


def write_csv(rows: list[Row], path: Path) -> None:
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS)
        writer.writeheader()
        for row in rows:
            values = asdict(row)
            values["passed"] = int(row.passed)
            values["seed"] = "" if row.seed is None else row.seed
            writer.writerow(values)


def summary(lab: manifest.Lab, rows: list[Row]) -> str:
    rows = [r for r in rows if r.lab == lab.id]
    students = sorted({r.student for r in rows})
    lines = [f"# Lab {lab.id}: {lab.title}", "",
             f"{len(students)} student{'s' if len(students) != 1 else ''} handed in this lab.", ""]
    unreadable = sorted({r.student for r in rows if r.exercise == "*"})
    if unreadable:
        lines += [f"Could not be read at all: {', '.join(unreadable)}.", ""]
    lines += ["| exercise | passed | failed | not started | broken | pass rate |", "|---|---|---|---|---|---|"]
    for exercise in lab.exercises:
        mine = [r for r in rows if r.exercise in (exercise.id, "*")]
        count = Counter("broken" if r.status in BROKEN else r.status for r in mine)
        rate = f"{100 * count['passed'] / len(mine):.0f} %" if mine else "–"
        lines.append(f"| {exercise.id} {exercise.title} | {count['passed']} | {count['failed']} | "
                     f"{count['not started']} | {count['broken']} | {rate} |")
    failing = Counter((r.exercise, r.first_failing) for r in rows if r.status == "failed" and r.first_failing)
    lines += ["", "## What to re-teach: the most common failing checks", ""]
    if not failing:
        lines.append("No check failed on a submitted answer.")
    for (exercise, check), n in failing.most_common(8):
        who = sorted(r.student for r in rows if r.exercise == exercise and r.first_failing == check
                     and r.status == "failed")
        lines.append(f"- **{exercise}**: {check} — {n} student{'s' if n != 1 else ''} ({', '.join(who)})")
    broken = [r for r in rows if r.status in BROKEN]
    if broken:
        lines += ["", "## Submissions that did not run", ""]
        for r in broken:
            lines.append(f"- {r.student}, {r.exercise}: {r.status} — {r.detail}")
    return "\n".join(lines) + "\n"
