"""A gradebook's scores count only what was shown: a stub scores nothing, and a check never reached (an
earlier check failed first, the answer raised) is neither passed nor failed but counts as not passed, in
the notebook's report, the CSV and the feedback file."""

from __future__ import annotations

import csv
import re

import pytest

from course.grading import grade, gradebook, run_check

from .test_grade import COURSE, lab_rows, notebook, save

LABS = ("00", "03", "07")
RAISES_FIRST = ("    # BEGIN SOLUTION\n", "    # BEGIN SOLUTION\n    raise RuntimeError('not yet')\n")


def returns_none(nb):
    """The lab's notebook with every stub's `raise NotImplementedError(...)` made `return None`."""
    for cell in nb.cells:
        cell.source = re.sub(r"raise NotImplementedError\(.*\)", "return None", cell.source)
    return nb


def test_a_check_not_reached_is_shown_and_counted_as_not_passed():
    def claim(conn, lease_s):
        raise RuntimeError("not yet")

    report = run_check("03.claim", claim=claim)
    text = report.render()
    unreached = [r for r in report.results if not r.reached]
    assert unreached and not any(r.passed for r in report.results), text
    assert f"{len(unreached)} not reached" in text and "counted as not passed" in text
    assert all(f"  · {r.name}" in text for r in unreached) and "✓" not in text


@pytest.mark.slow
@pytest.mark.timeout(1800)  # a backstop: each notebook's own limit bounds a hang
def test_stubs_score_nothing_and_a_first_failure_scores_only_what_passed(tmp_path, database):
    names = {lab: COURSE.lab(lab).notebook for lab in LABS}
    for lab in LABS:
        save(notebook(lab, "labs"), tmp_path / "class" / "stub" / names[lab])
    for lab in ("00", "07"):
        save(returns_none(notebook(lab, "labs")), tmp_path / "class" / "none" / names[lab])
    save(notebook("03", edit={"03.claim": lambda s: s.replace(*RAISES_FIRST)}), tmp_path / "class" / "ray" / names["03"])
    out = tmp_path / "out"
    graded = grade.grade(tmp_path / "class", out, jobs=2, timeout_s=120, seed=5, progress=False, trust=True)

    wide = {w["student"]: w for w in csv.DictReader(open(out / "grades-wide.csv"))}
    for student, labs in (("stub", LABS), ("none", ("00", "07"))):
        rows = [r for lab in labs for r in lab_rows(graded.rows, student, lab).values()]
        assert rows and all(r.score == 0 and r.checks_passed == 0 and not r.passed for r in rows), \
            [(r.exercise, r.status, r.checks_passed, r.checks_total) for r in rows]
        assert float(wide[student]["total"]) == 0

    ray = lab_rows(graded.rows, "ray", "03")
    claim = ray["03.claim"]
    assert claim.status == "failed" and claim.checks_passed == 0 and claim.score == 0, claim
    assert 0 < len(claim.failing) < claim.checks_total  # what failed is listed; the rest was not reached
    assert "not reached" in claim.report and "✓" not in claim.report
    others = [r for exercise, r in ray.items() if exercise != "03.claim"]
    assert all(r.passed for r in others), [(r.exercise, r.status) for r in others]
    assert float(wide["ray"]["total"]) == len(others)

    long = {(t["student"], t["exercise"]): t for t in gradebook.read_csv(out / "gradebook.csv")}
    assert long[("ray", "03.claim")]["score"] == "0.00"
    assert long[("ray", "03.claim")]["checks_passed"] == "0"
    feedback = (out / "feedback" / "ray" / "03.md").read_text()
    unreached = claim.checks_total - len(claim.failing)
    assert f"{unreached} of its checks were not reached" in feedback and "(0 of " in feedback


ALLOCATES_30_GB = "_hoard = bytearray(30 * 2**30)\n"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_notebook_past_the_memory_limit_gets_a_row_that_says_so_and_classmates_are_graded(tmp_path, database):
    from course.grading import confine

    if not confine.isolation()[0]:
        pytest.skip("the memory limit is the sandbox's (RLIMIT_AS): this machine has none")
    name = COURSE.lab("00").notebook
    save(notebook("00", prepend={"00.first_job": ALLOCATES_30_GB}), tmp_path / "class" / "hog" / name)
    save(notebook("00"), tmp_path / "class" / "ann" / name)
    graded = grade.grade(tmp_path / "class", tmp_path / "out", jobs=2, timeout_s=120, seed=5, progress=False,
                         trust=True)
    hog = lab_rows(graded.rows, "hog", "00")["00.first_job"]
    assert not hog.passed and hog.score == 0 and "memory limit" in hog.detail, hog
    assert all(r.passed for r in lab_rows(graded.rows, "ann", "00").values())


def test_a_notebook_process_ended_by_its_cpu_limit_is_said_to_have_met_the_time_limit():
    """The sandbox's RLIMIT_CPU ends a process by SIGXCPU (tests/infra/sandbox_attacks.py: attack_cpu_time);
    the row then names the limit rather than a signal's number."""
    import signal
    from types import SimpleNamespace

    from course.grading import checker

    ended = lambda code: SimpleNamespace(process=SimpleNamespace(wait=lambda timeout: code))  # noqa: E731
    assert checker._exit(ended(-signal.SIGXCPU)).startswith("time limit")
    assert checker._exit(ended(-signal.SIGKILL)) == "killed by signal 9"
