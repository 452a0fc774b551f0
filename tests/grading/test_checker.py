"""The trusted checker (course/grading/checker.py) watched by the grader's side (supervise.py): a notebook's
cells run in the answer host, the checks in a process that runs none of them.

Hostile cells that the boundary alone must defeat, as any user and with no sandbox: patching the checks'
classes, answers equal to everything, sys.exit, a thread that keeps the check's connection, killing the
checker, a daemon, a setup cell that never ends. (Reading files and other processes is the sandbox's to
refuse: tests/grading/test_grade.py.)"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import nbformat
import pytest

from course.infra import db, processes
from course.grading import confine, manifest
from course.grading.notebooks import ROOT, exercise_of
from course.grading.supervise import supervise
from tests.grading import hostile

COURSE = manifest.load()


def notebook(lab_id: str, tree: str = "labs", *, setup: str = "", cells: dict | None = None) -> str:
    """A lab's notebook as text: `setup` put before its first setup cell, `cells` replacing exercise cells."""
    nb = nbformat.read(ROOT / tree / COURSE.lab(lab_id).notebook, as_version=4)
    first = True
    for cell in nb.cells:
        if first and "setup" in cell.metadata.get("tags", []) and setup:
            cell.source, first = setup + "\n" + cell.source, False
        if cells and exercise_of(cell) in cells:
            cell.source = cells[exercise_of(cell)]
    return nbformat.writes(nb)


def graded(text: str, lab_id: str = "00", timeout_s: float = 60.0, tmp_path: Path | None = None):
    lab = COURSE.lab(lab_id)
    exercises = [e.id for e in lab.exercises]
    log = (tmp_path or Path("/tmp")) / f"checker-test-{os.getpid()}-{time.monotonic_ns()}.log"
    run = supervise(lab.notebook, text, exercises, {e: 7 for e in exercises}, conninfo=db.database().conninfo,
                    timeout_s=timeout_s, log=log)
    return run, log.read_text() if log.exists() else ""


def statuses(run) -> dict[str, str]:
    return {exercise: result["status"] for exercise, result in run.results.items()}


def test_a_solved_notebook_passes_with_its_score_and_report(tmp_path, database):
    run, _ = graded(notebook("00", "solutions"), tmp_path=tmp_path)
    assert statuses(run) == {"00.first_job": "passed", "00.quiz": "passed"}, run.results
    first = run.results["00.first_job"]
    assert first["checks"][0] == first["checks"][1] > 0 and "checks passed" in first["report"]
    assert run.flags == [] and run.checkers == 1


def test_patching_the_checks_classes_in_the_notebook_changes_nothing(tmp_path, database):
    run, _ = graded(notebook("00", setup=hostile.PATCH_REPORT), tmp_path=tmp_path)
    assert statuses(run) == {"00.first_job": "not started", "00.quiz": "not started"}, run.results


def test_answers_that_equal_everything_pass_nothing(tmp_path, database):
    cells = {"00.first_job": hostile.EQUAL_TO_EVERYTHING, "00.quiz": hostile.EQUAL_TO_EVERYTHING}
    run, _ = graded(notebook("00", "solutions", cells=cells), tmp_path=tmp_path)
    assert statuses(run) == {"00.first_job": "failed", "00.quiz": "failed"}, run.results


def test_sys_exit_in_an_answer_fails_it_and_the_checks_go_on(tmp_path, database):
    run, _ = graded(notebook("00", "solutions", cells={"00.first_job": hostile.EXITS}), tmp_path=tmp_path)
    assert statuses(run) == {"00.first_job": "failed", "00.quiz": "passed"}, run.results
    assert "SystemExit" in run.results["00.first_job"]["detail"]


def test_a_thread_that_keeps_the_checks_connection_is_refused_it(tmp_path, database):
    """Its threads' statements run only while a call of the check's is open (the connection is lent again, by
    the same reference, to each call; a statement then is the answer's own, and the check sees what it did).
    Once the check's last call has returned, nothing is lent: the thread's DELETE is refused."""
    run, log = graded(notebook("00", "solutions", cells={"00.first_job": hostile.STRAY_THREAD}), tmp_path=tmp_path)
    # Refused for being outside any call, or, while a call is open, for crossing beside it (the boundary
    # takes one call of the answer's at a time): which one the thread meets depends on when it runs.
    refusals = re.findall(r"stray thread refused: (nothing is lent to your code right now|that object is no longer "
                          r"lent|too many calls at once across the grading boundary)", log)
    assert refusals, log[-2000:]
    assert run.results["00.first_job"]["status"] in {"passed", "failed"}, run.results  # a verdict, as ever


def test_killing_the_checker_is_a_crash_not_a_pass(tmp_path, database):
    run, _ = graded(notebook("00", "solutions", setup=hostile.KILL_THE_CHECKER), timeout_s=30, tmp_path=tmp_path)
    assert set(statuses(run).values()) <= {"crashed", "timed out"}, run.results


def test_a_daemon_is_found_killed_and_flagged(tmp_path, database):
    run, _ = graded(notebook("00", "solutions", setup=hostile.DAEMON), tmp_path=tmp_path)
    assert statuses(run) == {"00.first_job": "passed", "00.quiz": "passed"}, run.results
    flagged = [flag for flag in run.flags if "processes left running" in flag]
    assert flagged, run.flags
    pids = [int(pid) for pid in re.findall(r"pid (\d+)", flagged[0])]
    assert pids and not any(processes.pid_alive(pid) for pid in pids)


def test_a_setup_cell_that_never_ends_costs_one_time_limit_for_the_whole_notebook(tmp_path, database):
    exercises = len(COURSE.lab("03").exercises)
    started = time.monotonic()
    run, _ = graded(notebook("03", "solutions", setup=hostile.HANG), lab_id="03", timeout_s=20, tmp_path=tmp_path)
    took = time.monotonic() - started
    assert set(statuses(run).values()) == {"timed out"} and len(run.results) == exercises, run.results
    assert run.checkers == 1 and "once, for every exercise" in run.results["03.claim"]["detail"]
    assert took < exercises * 20  # one limit (and start-up), not one per exercise


@pytest.mark.skipif(os.geteuid() == 0, reason="as root, /proc of the checker is open to any root process: "
                                                "only the sandbox's unused uid keeps the answer out")
def test_the_checker_cannot_be_read_or_written_by_the_notebooks_process(tmp_path, database):
    text = notebook("00", setup=hostile.READ_THE_CHECKER + hostile.FORGE_THROUGH_PROC)
    run, _ = graded(text, tmp_path=tmp_path)
    assert statuses(run) == {"00.first_job": "not started", "00.quiz": "not started"}, run.results
    assert not any("never started" in flag or "second result" in flag for flag in run.flags), run.flags


@pytest.mark.skipif(not confine.isolation()[0], reason="no sandbox on this machine: the checker makes no /tmp folders")
def test_a_checker_killed_at_its_time_limit_leaves_no_folders_behind(tmp_path, database, monkeypatch):
    """A sandboxed checker makes an exchange folder and a sandbox folder in /tmp and removes them as it ends; one
    killed at the time limit cannot (hundreds were left on a machine that had run the suite for a day): the
    grader, which killed it, removes those named by the run's token."""
    from course.grading import supervise as supervising

    tokens, token_hex = [], supervising.secrets.token_hex
    monkeypatch.setattr(supervising.secrets, "token_hex", lambda n=None: tokens.append(token_hex(n)) or tokens[-1])
    lab = COURSE.lab("00")
    exercises = [e.id for e in lab.exercises]
    run = supervise(lab.notebook, notebook("00", "solutions", setup=hostile.HANG), exercises, {e: 7 for e in exercises},
                    conninfo=db.database().conninfo, timeout_s=20, log=tmp_path / "checker.log", sandboxed=True)
    assert set(statuses(run).values()) == {"timed out"}, run.results
    assert tokens and all(not list(Path("/tmp").glob(f"course-*-{token}-*")) for token in tokens)
