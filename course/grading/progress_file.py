"""Which exercises you have passed, kept in a small JSON file (`.course/progress.json`).

`python -m course progress` prints the table; in a notebook, `progress()` does the same.
COURSE_PROGRESS_FILE points it elsewhere (the test suite does, to keep your progress yours).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import tempfile
import time
from pathlib import Path

from course.infra import db
from course.grading import manifest


def state_file() -> Path:
    return Path(os.environ.get("COURSE_PROGRESS_FILE") or db.project_home() / "progress.json")


def load() -> dict[str, dict]:
    try:
        return json.loads(state_file().read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def record(exercise_id: str, status: str, passed: int, total: int) -> None:
    """Remember the latest result; a pass is never forgotten by a later failed attempt. Two checks that
    record at once (a terminal and a notebook) take turns, so neither result is lost."""
    path = state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    with _turn(path):
        state = load()
        entry = state.get(exercise_id, {})
        entry.update(last=status, last_at=time.strftime("%Y-%m-%d %H:%M"), checks=f"{passed}/{total}")
        if status == "passed":
            entry["passed_at"] = entry.get("passed_at") or entry["last_at"]
        state[exercise_id] = entry
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")  # a name of its own
        try:
            with os.fdopen(handle, "w") as out:
                out.write(json.dumps(state, indent=1, sort_keys=True))
            os.replace(tmp, path)  # atomic: a killed kernel never leaves half a file
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


@contextlib.contextmanager
def _turn(path: Path):
    """Hold the progress file's lock (a file beside it, released when the process ends, however it ends)."""
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def table(lab_id: str | None = None) -> str:
    course = manifest.load()
    state = load()
    labs = [course.lab(lab_id)] if lab_id else course.labs
    lines = []
    done_total = count_total = 0
    for lab in labs:
        done = sum(1 for e in lab.exercises if state.get(e.id, {}).get("passed_at"))
        done_total += done
        count_total += len(lab.exercises)
        lines.append(f"{lab.id}  {lab.title}  ({done}/{len(lab.exercises)})")
        for exercise in lab.exercises:
            entry = state.get(exercise.id, {})
            if entry.get("passed_at"):
                mark, when = "✓", f"passed {entry['passed_at']}"
            elif entry:
                mark, when = "·", f"{entry['last']} ({entry['checks']}) {entry['last_at']}"
            else:
                mark, when = " ", "not tried"
            lines.append(f"    [{mark}] {exercise.id:<24} {exercise.title:<44} {when}")
    lines.append(f"{done_total} of {count_total} exercises passed.")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m course progress", description=__doc__.splitlines()[0])
    parser.add_argument("lab", nargs="?", help="only this lab, e.g. 03")
    args = parser.parse_args(argv)
    print(table(args.lab))
    return 0
