"""A grader killed with SIGKILL mid-run (it can clean nothing up) leaves nothing of its own running: its
checkers die with it (PR_SET_PDEATHSIG), and with them the answer hosts, the sandboxes' wardens and
whatever the notebooks started, daemons included; the next run grades correctly."""

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
    save(notebook("00", prepend={"00.first_job": HANG}), tmp_path / "class" / "hal" / name)
    save(notebook("00", prepend={"00.first_job": DAEMON + HANG}), tmp_path / "class" / "dae" / name)
    grader = subprocess.Popen([sys.executable, "-m", "course", "grade", str(tmp_path / "class"), "--out",
                               str(tmp_path / "out"), "--jobs", "2", "--timeout", "900", "--seed", "3"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        # Both notebooks in their hanging cell: a checker each, with the answer host below it (and the daemon)
        bound = processes.HangBound(600)
        while not bound.passed():
            below = _descendants(grader.pid)
            checkers = [p for p in below if "course.grading.checker" in _cmdline(p)]
            if len(checkers) == 2 and all(len(_descendants(c)) >= 2 for c in checkers):
                break
            assert grader.poll() is None, "the grader ended before it was killed"
            time.sleep(1)
        else:
            pytest.fail(f"the notebooks never got to their hanging cells: {[(_cmdline(p)[:80]) for p in below]}")
        time.sleep(5)  # the daemon forks meanwhile
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
