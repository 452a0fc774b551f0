"""The gradebook of a graded class: one row per student, lab and exercise, as a CSV file, and a summary
per lab in markdown (pass rates, and the most common failing checks: what to re-teach).

    Row                     one student's result on one exercise: status, score, checks passed of checks
                            made, every failing check, seconds, seed
    write_csv(rows, path)   gradebook.csv, one line per row, COLUMNS in order; read_csv(path) reads it back
    summary(lab, rows)      summary-NN.md: the lab's pass rates, what to re-teach, what did not run
    Run, overview(...)      summary.md's head: when, how long, the seed, the course's version, the sandbox,
                            and what the integrity checks flagged
    one_line(text)          a message fit for one CSV cell

What the instructor hands back (a wide score sheet, a feedback file per student and lab) is handback.py.
"""

from __future__ import annotations

import csv
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from course.grading import manifest

COLUMNS = ["student", "lab", "exercise", "status", "passed", "score", "checks_passed", "checks_total", "seconds",
           "seed", "first_failing", "failing", "notebook", "detail"]
FAILING_SEPARATOR = " | "


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
    checks_passed: int = 0
    checks_total: int = 0
    failing: list[dict] = field(default_factory=list)  # every failing check: {"name", "why"}
    report: str = ""  # the report as check() prints it (for the feedback file; not in the CSV)

    @property
    def score(self) -> float:
        """1 when it passed; else the share of its checks that passed (0 for one that did not run)."""
        if self.passed:
            return 1.0
        if self.status in BROKEN or self.status == "not started" or not self.checks_total:
            return 0.0
        return self.checks_passed / self.checks_total


def one_line(text: str | None, limit: int = 300) -> str:
    """A message for one CSV cell: its lines joined, its whitespace collapsed, cut at `limit`."""
    line = " / ".join(" ".join(part.split()) for part in (text or "").splitlines() if part.strip()).rstrip(":")
    return line if len(line) <= limit else line[: limit - 1] + "…"


BROKEN = {"no cell", "could not load", "timed out", "crashed", "unreadable", "problem"}


def write_csv(rows: list[Row], path: Path) -> None:
    with open(path, "w", newline="") as out:
        writer = csv.DictWriter(out, COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(_cells(row))


def _cells(row: Row) -> dict[str, str]:
    values = asdict(row)
    values.update(passed=int(row.passed), seed="" if row.seed is None else row.seed, score=f"{row.score:.2f}",
                  failing=FAILING_SEPARATOR.join(one_line(f["name"], 200) for f in row.failing))
    return {name: spreadsheet_safe(str(values[name])) for name in COLUMNS}


def spreadsheet_safe(text: str) -> str:
    """A CSV cell a spreadsheet or an LMS shows as text: one that starts as a formula would (=, +, -, @; a
    student's folder named =HYPERLINK(...), an error message) gets a leading apostrophe."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as source:
        return list(csv.DictReader(source))


def differs_from(table: list[dict[str, str]], rows: list[Row]) -> str | None:
    """Why the CSV read back is not the rows written (a file changed after we wrote it), or None."""
    if len(table) != len(rows):
        return f"{len(table)} rows in the file, {len(rows)} written"
    for number, (read, row) in enumerate(zip(table, rows), start=2):
        if read != _cells(row):
            return f"line {number} ({row.student}, {row.exercise}) is not what was written"
    return None


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
    failing = Counter((r.exercise, check) for r in rows if r.status == "failed"
                      for check in ([f["name"] for f in r.failing] or [r.first_failing]) if check)
    lines += ["", "## What to re-teach: the most common failing checks", ""]
    if not failing:
        lines.append("No check failed on a submitted answer.")
    for (exercise, check), n in failing.most_common(8):
        who = sorted(r.student for r in rows if r.exercise == exercise and r.status == "failed"
                     and check in ([f["name"] for f in r.failing] or [r.first_failing]))
        lines.append(f"- **{exercise}**: {check} — {n} student{'s' if n != 1 else ''} ({', '.join(who)})")
    broken = [r for r in rows if r.status in BROKEN]
    if broken:
        lines += ["", "## Submissions that did not run", ""]
        for r in broken:
            lines.append(f"- {r.student}, {r.exercise}: {r.status} — {r.detail}")
    return "\n".join(lines) + "\n"


# -- the run, and what did not add up -----------------------------------------------------------------


@dataclass
class Run:
    started: str  # UTC, ISO 8601
    seconds: float
    seed: int
    course_version: str
    python: str
    sandbox: str  # one line: what confined the notebooks' code
    command: str
    flags: list[tuple[str, str]] = field(default_factory=list)  # (whose: student or student/lab, what)
    checksum: str = ""  # gradebook.csv's SHA-256, as written

    def head(self) -> str:
        lines = ["# Grading run", "",
                 f"- started {self.started}, took {self.seconds:.0f} s",
                 f"- seed {self.seed} (replay: `{self.command} --seed {self.seed}`)",
                 f"- course {self.course_version}, Python {self.python}",
                 f"- {self.sandbox}", "", "## Integrity", ""]
        if not self.flags:
            lines.append("Nothing to flag: every notebook was graded as read at the start, its checks started "
                         "before its results came, and nothing it started was left running.")
        for whose, what in self.flags:
            lines.append(f"- **{whose}**: {what}")
        if any("same code" in what for _, what in self.flags):
            lines += ["", "(The same code under other names: a hint's last step can make two honest answers "
                          "alike; read them before you conclude.)"]
        if self.checksum:
            lines += ["", f"gradebook.csv as written: SHA-256 {self.checksum}"]
        return "\n".join(lines) + "\n"
