"""What an instructor hands back after grading a class: a score sheet an LMS imports, and a feedback file
per student and lab.

    write_wide_csv(rows, exercises, p)  grades-wide.csv: one row per student, one column per exercise (its
                                        score), a column per lab (the sum of its exercises) and the total
    write_feedback(rows, folder)        feedback/<student>/<NN>.md: each exercise's result, every failing
                                        check and why, and the seed that replays the run

The rows are the gradebook's (gradebook.Row): they carry their score (1 when the exercise passed, else
the share of its checks that passed, 0 for one that did not run), every failing check with its reason,
the seed, and the report as the learner would have read it in the notebook.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections import defaultdict
from pathlib import Path

from course.grading.gradebook import spreadsheet_safe

def write_wide_csv(rows, exercises: list, path: Path) -> None:
    """`exercises`: the course's exercises (manifest order); only labs someone handed in get columns."""
    handed = {r.lab for r in rows if r.lab}
    shown = [e for e in exercises if e.id.split(".")[0] in handed]
    labs = sorted({e.id.split(".")[0] for e in shown})
    by_student: dict[str, dict[str, float]] = defaultdict(dict)
    for row in rows:
        if row.exercise == "*":  # a notebook that could not be read: every exercise of its lab scores 0
            for exercise in shown:
                if exercise.id.startswith(row.lab + "."):
                    by_student[row.student].setdefault(exercise.id, 0.0)
        elif row.exercise:
            by_student[row.student][row.exercise] = row.score
        else:
            by_student.setdefault(row.student, {})
    with open(path, "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["student", *(e.id for e in shown), *(f"lab {lab}" for lab in labs), "total"])
        for student in sorted(by_student):
            scores = by_student[student]
            per_lab = [sum(v for k, v in scores.items() if k.startswith(lab + ".")) for lab in labs]
            writer.writerow([spreadsheet_safe(student), *(_number(scores[e.id]) if e.id in scores else "" for e in shown),
                             *(_number(v) for v in per_lab), _number(sum(scores.values()))])


def _number(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".") if value % 1 else str(int(value))


def write_feedback(rows, folder: Path, titles: dict[str, str]) -> list[Path]:
    """One markdown file per student and lab; `titles`: exercise id -> its title. The files written."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for row in rows:
        if row.lab:
            groups[(row.student, row.lab)].append(row)
    written = []
    names = file_names(student for student, _ in groups)
    for (student, lab), mine in sorted(groups.items()):
        path = folder / names[student] / f"{lab}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(feedback(student, lab, mine, titles))
        written.append(path)
    return written


def feedback(student: str, lab: str, rows: list, titles: dict[str, str]) -> str:
    passed = sum(r.passed for r in rows if r.exercise != "*")
    counted = [r for r in rows if r.exercise != "*"]
    lines = [f"# Lab {lab}: feedback for {student}", ""]
    if any(r.exercise == "*" for r in rows):
        broken = next(r for r in rows if r.exercise == "*")
        lines += [f"Your notebook could not be graded: {broken.detail}", ""]
    if counted:
        lines += [f"{passed} of {len(counted)} exercises passed; score {sum(r.score for r in counted):.2f} of "
                  f"{len(counted)} (an exercise that did not pass scores the share of its checks that did).", ""]
    for row in counted:
        title = titles.get(row.exercise, "")
        checks = f" ({row.checks_passed} of {row.checks_total} checks)" if row.checks_total else ""
        lines.append(f"## {row.exercise}{': ' + title if title else ''} — {row.status}{checks}")
        lines.append("")
        if row.failing:
            lines.append("What failed, and why:")
            for check in row.failing:
                why = f": {check['why']}" if check.get("why") else ""
                lines.append(f"- {check['name']}{why}")
            lines.append("")
        elif row.status not in ("passed", "failed") and row.detail:
            lines += [row.detail, ""]
        unreached = row.checks_total - row.checks_passed - len(row.failing)
        if row.status == "failed" and unreached > 0:
            lines += [f"{unreached} of its checks were not reached (an earlier check failed first): they count "
                      "as not passed; the report below marks them ·.", ""]
        if row.seed is not None and not row.passed:
            lines += [f"Replay this run in your notebook: `check({row.exercise!r}, seed={row.seed})`.", ""]
        if row.report and not row.passed:
            lines += ["The full report, as `check()` prints it:", "", "```", row.report.rstrip(), "```", ""]
    return "\n".join(lines).rstrip() + "\n"


def safe(name: str) -> str:
    """A student's name as a file name (two names may give the same one: file_names keeps them apart)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:60].strip(".") or "student"


def file_names(students) -> dict[str, str]:
    """Each student's name as a file name, no two alike: `eve!` and `eve?` are both `eve_` to safe(), so
    each gets a short hash of the real name after it (and so does a name another student's would take)."""
    students = sorted(set(students))
    taken: dict[str, list[str]] = defaultdict(list)
    for student in students:
        taken[safe(student)].append(student)
    names, used = {}, set()
    for student in students:
        name = safe(student)
        if len(taken[name]) > 1 or name != student or name in used:
            name = f"{name[:48]}-{hashlib.sha256(student.encode()).hexdigest()[:10]}"
        while name in used or (name in taken and taken[name] != [student]):  # a name chosen to be another's
            name = f"{name}-{hashlib.sha256(name.encode()).hexdigest()[:4]}"
        used.add(name)
        names[student] = name
    return names
