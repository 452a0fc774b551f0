"""A grader killed with SIGKILL mid-run (it can clean nothing up) leaves nothing of its own running: its
checkers die with it (PR_SET_PDEATHSIG), and with them the answer hosts, the sandboxes' wardens and
whatever the notebooks started, daemons included; the next run grades correctly.

A checker has a second way to learn that its grader is gone: its next event hits a broken pipe, and it
ends (BrokenPipeError, everything it started ended first). That one is no guard: a checker waits up to its
time limit (here 900 s) for an answer that hangs, emitting nothing. So the grader is killed only once both
notebooks print, from inside their hanging cell, that they are there: then PR_SET_PDEATHSIG alone can end
the checkers within the 120 s this test waits. (Killed at an earlier moment, say during the setup cells,
the broken pipe ended both checkers in ~5 s with PR_SET_PDEATHSIG taken out, and the test passed.)
What ends the answer hosts and daemons once their checker is gone — the sandbox's lifeline and PID
namespace — is tests/infra/test_sandbox.py's (test_when_the_caller_dies_the_sandbox_dies_with_it)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from course.grading import grade
from course.infra import processes

from .test_grade import COURSE, HANG, lab_rows, notebook, save

CUE = "in the hanging cell now"
HANG_AFTER_CUE = f"print({CUE!r}, flush=True)\n" + HANG  # the answer host's output goes to the notebook's log

DAEMON = """\
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(3600)
    os._exit(0)
"""


def _started(pid: int) -> str | None:
    """The process's start time (the 22nd field of its stat): a pid is the same process while it holds."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return None


def _descendants(root: int) -> dict[int, str]:
    """Every process below `root` (in any PID namespace or uid: /proc shows them all to their ancestors' view),
    with its start time."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = {}, [root]
    while todo:
        for child in children.get(todo.pop(), []):
            started = _started(child)
            if started is not None and child not in found:
                found[child] = started
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_grader_killed_mid_run_leaves_nothing_running_and_the_next_run_grades(tmp_path, database):
    name = COURSE.lab("00").notebook
    save(notebook("00", prepend={"00.first_job": HANG_AFTER_CUE}), tmp_path / "class" / "hal" / name)
    save(notebook("00", prepend={"00.first_job": DAEMON + HANG_AFTER_CUE}), tmp_path / "class" / "dae" / name)
    logs = [tmp_path / "out" / "logs" / f"{student}-00.log" for student in ("hal", "dae")]
    grader = subprocess.Popen([sys.executable, "-m", "course", "grade", str(tmp_path / "class"), "--out",
                               str(tmp_path / "out"), "--jobs", "2", "--timeout", "900", "--seed", "3"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # Both notebooks in their hanging cell (their cue in their log): no event will come from either
        bound = processes.HangBound(600)
        while not bound.passed():
            below = _descendants(grader.pid)
            checkers = [p for p in below if "course.grading.checker" in _cmdline(p)]
            if len(checkers) == 2 and all(log.exists() and CUE in log.read_text() for log in logs):
                break
            assert grader.poll() is None, "the grader ended before it was killed"
            time.sleep(1)
        else:
            pytest.fail(f"the notebooks never got to their hanging cells: {[(_cmdline(p)[:80]) for p in below]}")
        time.sleep(5)  # the daemon forked before the cue; its grandchild is under way
        below = _descendants(grader.pid)
        os.kill(grader.pid, signal.SIGKILL)
        grader.wait(60)
    finally:
        if grader.poll() is None:
            grader.kill()
    bound = processes.HangBound(120)  # the sweep of a killed grader's children: slower at load, never skipped
    alive = below
    while alive and not bound.passed():
        time.sleep(1)
        alive = {pid: started for pid, started in below.items() if _started(pid) == started}
    assert not alive, {pid: _cmdline(pid)[:100] for pid in alive}

    (tmp_path / "again" / "ann").mkdir(parents=True)
    save(notebook("00"), tmp_path / "again" / "ann" / name)
    graded = grade.grade(tmp_path / "again", tmp_path / "out2", jobs=2, timeout_s=120, seed=3, progress=False,
                         trust=True)
    assert all(r.passed for r in lab_rows(graded.rows, "ann", "00").values()), graded.rows
