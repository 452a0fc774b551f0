"""Every lab's reference answers, graded by `python -m course grade` as an instructor runs it (sandboxed
where the machine can: as root in CI), pass every exercise with full marks; every lab's untouched stubs
score nothing. A reference that works in its notebook but not behind the grader's boundary (a check that
lends an object the boundary does not list, a child that cannot reach what its sandbox hides) shows here,
not in a class's gradebook.

One class of two students, ref (solutions/) and stub (labs/), for every lab the grader grades, two
notebooks at a time: ~3.5 min at load 10 on 2 cores (the stubs take seconds; lab 12's reference ~90 s).
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys

import pytest

from course.grading import confine, manifest, notebooks

ROOT = notebooks.ROOT
COURSE = manifest.load()
LABS = [lab for lab in COURSE.labs if lab.id <= "13"]  # lab 14, the exam: its own graded test (test_lab14_commands.py)
HANG_S = 900  # a hang's bound per exercise (the grader's --timeout): far above any reference's time at load 40


@pytest.mark.slow
@pytest.mark.timeout(3 * 3600)  # a backstop: the grader's --timeout bounds each hang
def test_every_reference_earns_full_marks_and_every_stub_nothing_under_the_grader(tmp_path, database):
    """One test, one grade run (a test is a unit of its own under xdist: two would grade the class twice)."""
    for student, tree in (("ref", "solutions"), ("stub", "labs")):
        (tmp_path / "class" / student).mkdir(parents=True)
        for lab in LABS:
            shutil.copy(ROOT / tree / lab.notebook, tmp_path / "class" / student / lab.notebook)
    sandboxed, _ = confine.isolation()
    command = [sys.executable, "-m", "course", "grade", "class", "--out", "out", "--jobs", "2",
               "--timeout", str(HANG_S), "--seed", "23", *([] if sandboxed else ["--trust-submissions"])]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=3 * 3600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = {(r["student"], r["exercise"]): r for r in csv.DictReader(open(tmp_path / "out" / "gradebook.csv"))}
    exercises = [exercise.id for lab in LABS for exercise in lab.exercises]

    def said(row):
        return row and {k: row[k] for k in ("status", "checks_passed", "checks_total", "first_failing", "detail")}

    short = {e: said(rows.get(("ref", e))) for e in exercises
             if not (row := rows.get(("ref", e))) or not (row["status"] == "passed" and row["passed"] == "1"
                                                           and row["score"] == "1.00"
                                                           and row["checks_passed"] == row["checks_total"])}
    earned = {e: said(rows.get(("stub", e))) for e in exercises
              if not (row := rows.get(("stub", e))) or row["passed"] != "0" or row["score"] != "0.00"}
    # A stub's exercise is not started (its NotImplementedError, its `...`): one that failed instead met a
    # check that broke before it reached the answer, which a reference meets too
    broken = {e: said(rows[("stub", e)]) for e in exercises
              if ("stub", e) in rows and rows[("stub", e)]["status"] != "not started"}
    logs = tmp_path / "out" / "logs"
    assert not short, f"references short of full marks: {short}\n(their output: {logs}/ref-NN.log)"
    assert not earned, f"stubs that earned marks: {earned}"
    assert not broken, f"stubs not judged 'not started': {broken}"
