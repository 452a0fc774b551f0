"""The grader's side of one notebook: a trusted checker started (course/grading/checker.py), its events
read from a pipe only the two of them hold, its time limits kept, and whatever it left running killed.

    run = supervise(path, exercises, seeds, conninfo=..., timeout_s=120, log=..., work_root=...,
                    sandboxed=True, hidden=[...])   # the notebook's code in sandboxes that never read `hidden`
    run.results    exercise -> the checker's result event (or the grader's own: timed out, crashed)
    run.flags      what did not add up (integrity.Events), and processes found running afterwards

A checker that hangs or dies is started again for the exercises it did not finish, so one exercise's
hang costs one time limit. A hang in the setup cells costs one time limit for the whole notebook: every
exercise left is timed out at once, since each would run the same cells again.

Every path handed to the checker is absolute, and its folder is private to this run (not under the
gradebook's folder, not the current folder): a relative --out or SUBMISSIONS means nothing to it.
"""

from __future__ import annotations

import json
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from course.grading import integrity
from course.infra import processes
from course.grading.checker import SETUP_PHASE
from course.grading.confine import remove_folders, sweep

NEVER_STARTED_S = 60.0  # beyond the time limit: a checker that never begins an exercise is stuck
FINISHING_S = 30.0  # from its last result to its exit: ending the notebook's processes


@dataclass
class NotebookRun:
    results: dict[str, dict] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    checkers: int = 0  # how many checker processes it took


def supervise(name: str, text: str, exercises: list[str], seeds: dict[str, int | None], *, conninfo: str | None,
              timeout_s: float, log: Path, work_root: Path | None = None, sandboxed: bool = False,
              hidden: list[str] = (), companions: dict[str, str | None] | None = None) -> NotebookRun:
    """Grade the notebook `text` (read by the grader before any notebook's code ran; `name` its file name).
    `companions`: the student's notebooks of other labs its exercises load answers from (file name -> text,
    read then too): lab 14's pieces."""
    run = NotebookRun()
    remaining = list(exercises)
    while remaining:
        run.checkers += 1
        _one_checker(name, text, remaining, seeds, run, conninfo=conninfo, timeout_s=timeout_s,
                     log=log.resolve(), work_root=work_root, sandboxed=sandboxed, hidden=list(hidden),
                     companions=companions)
        remaining = [e for e in remaining if e not in run.results]
    return run


def _one_checker(name: str, text: str, exercises: list[str], seeds: dict, run: NotebookRun, *,
                 conninfo: str | None, timeout_s: float, log: Path, work_root: Path | None, sandboxed: bool,
                 hidden: list[str], companions: dict[str, str | None] | None = None) -> None:
    work = Path(tempfile.mkdtemp(prefix="course-grade-", dir=work_root)).resolve()
    token = secrets.token_hex(8)
    reading, writing = os.pipe()
    spec = {"notebook_name": name, "notebook_text": text, "exercises": exercises,
            "seeds": {e: seeds.get(e) for e in exercises}, "scratch": str(work / "scratch"), "log": str(log),
            "events_fd": writing, "token": token, "sandboxed": sandboxed, "secrets": [*hidden, str(work)],
            "companions": companions}
    env = {**os.environ, "COURSE_LOG_DIR": str(work / "logs"), "TMPDIR": str(work), "MPLBACKEND": "Agg",
           "COURSE_PROGRESS_FILE": str(work / "progress.json"), "PYTHONUNBUFFERED": "1"}
    env.pop("COURSE_DB", None)
    if conninfo:
        env["DATABASE_URL"] = conninfo
    events = integrity.Events(asked=list(exercises))
    try:
        with open(log, "a") as out:
            out.write(f"--- {name}: exercises {', '.join(exercises)}\n")
            out.flush()
            checker = subprocess.Popen([sys.executable, "-m", "course.grading.checker", "-"], cwd=work, env=env,
                                       stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT,
                                       pass_fds=(writing,), start_new_session=True,
                                       preexec_fn=processes.die_with_parent)  # a grader stopped takes it along
        os.close(writing)
        writing = None
        try:
            checker.stdin.write(json.dumps(spec).encode())
            checker.stdin.close()
        except OSError:
            pass  # it died at once: _watch says so
        _watch(checker, reading, events, exercises, seeds, run, timeout_s)
    finally:
        if writing is not None:
            os.close(writing)
        os.close(reading)
        left = sweep(token)  # the notebook's processes, should the checker have died before ending them
        remove_folders(token)  # and the /tmp folders it made for them (its exchange, its sandboxes)
        if left:
            events.take({"event": "leftovers", "processes": [list(p) for p in left]})
        run.flags += events.flags
        shutil.rmtree(work, ignore_errors=True)


def _watch(checker: subprocess.Popen, reading: int, events: integrity.Events, exercises: list[str], seeds: dict,
           run: NotebookRun, timeout_s: float) -> None:
    current, phase, started = None, "starting", time.monotonic()
    buffer = b""
    ended = False
    while True:
        if not ended and select.select([reading], [], [], 0.2)[0]:
            chunk = os.read(reading, 1 << 16)
            ended = not chunk
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(event, dict):
                    continue
                result = events.take(event)
                if event.get("exercise") in exercises and event.get("event") == "start":
                    current, phase, started = event["exercise"], str(event.get("phase", "")), time.monotonic()
                elif event.get("exercise") == current and event.get("event") == "phase":
                    phase = str(event.get("phase", ""))
                if result is not None:
                    run.results[result["exercise"]] = result
                    current, started = None, time.monotonic()
        done = all(e in run.results for e in exercises)
        code = checker.poll()
        if done and (code is not None or ended or time.monotonic() - started > FINISHING_S):
            _end(checker)
            return
        if code is not None and ended:
            _end(checker)
            victim = current or next(e for e in exercises if e not in run.results)
            run.results[victim] = _own(victim, "crashed", seeds, time.monotonic() - started,
                                       f"the checking process ended ({_how(code)}) while {phase}")
            return
        late = time.monotonic() - started > (timeout_s if current else timeout_s + NEVER_STARTED_S)
        if late:
            _end(checker)
            if current is None:
                victim = next(e for e in exercises if e not in run.results)
                run.results[victim] = _own(victim, "timed out", seeds, time.monotonic() - started,
                                           "the checking process never began this exercise")
            elif phase == SETUP_PHASE:  # every exercise left would run the same cells: one limit for all
                for exercise in exercises:
                    if exercise not in run.results:
                        run.results[exercise] = _own(exercise, "timed out", seeds, timeout_s,
                                                     f"the notebook's setup cells were still running after "
                                                     f"{timeout_s:g} s; stopped (once, for every exercise)")
            else:
                run.results[current] = _own(current, "timed out", seeds, time.monotonic() - started,
                                            f"still {phase} after {timeout_s:g} s; stopped")
            return


def _own(exercise: str, status: str, seeds: dict, seconds: float, detail: str) -> dict:
    """A result the grader writes itself, for an exercise the checker could not finish."""
    return {"event": "result", "exercise": exercise, "status": status, "passed": False, "checks": [0, 0],
            "failing": [], "detail": detail, "seed": seeds.get(exercise), "seconds": round(seconds, 2), "report": ""}


def _end(checker: subprocess.Popen) -> None:
    try:
        os.killpg(checker.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    checker.wait()


def _how(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
