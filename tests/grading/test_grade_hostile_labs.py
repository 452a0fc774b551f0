"""A hostile round on the labs whose checks start processes that run the learner's code: lab 02's worker
processes (02.send_receipt), lab 08's scheduler processes (08.tick), lab 12's kill-point children
(12.invoice_worker) and lab 13's JetStream consumer processes (13.keep_alive). Each is a door the answer
host's own sandbox does not cover by itself: the check, trusted, starts the process, and the grader's
launcher must sandbox it as the answer host is.

Each notebook is its lab's reference with a probe put in its answer's function: first called in such a
process (never in the answer host), the probe tries to read solutions/ and the server's password, to log in as
the superuser or into another database (a classmate's channels and advisory locks), to open the history
its check reads (a fault run's, lab 08's: a line added there, or the "stop injecting" switch, would be a
forgery), and leaves a double-forked daemon behind (signals and ptrace are tests/infra/test_sandbox.py's). A probe that got
anything raises at every call in that process, so the answer fails (a handler that failed once would only
be retried): every row passing with full marks is the proof that every door held. Then nothing may be left
running, and the classmate graded beside them passes untouched."""

from __future__ import annotations

import re
import secrets
from pathlib import Path

import pytest

from course.grading import confine, grade

from .test_grade import COURSE, lab_rows, notebook, save, sentinel  # noqa: F401 (a fixture)

MARK = f"course-hostile-{secrets.token_hex(4)}"
PROBE = """
import os, sys
from pathlib import Path
if not sys.argv[0].endswith("boundary/host.py") and "COURSE_PROBE_GOT" not in os.environ:
    import psycopg
    from psycopg.conninfo import make_conninfo
    import course
    root = Path(course.__file__).resolve().parents[1]
    got = []
    def tried(what, act):
        try:
            act()
            got.append(what)
        except Exception:
            pass
    tried("solutions/", lambda: next((root / "solutions").iterdir()).read_bytes())
    tried("the password file", lambda: (root / ".course" / "pgpass").read_bytes())
    tried("the checks' source", lambda: (root / "course" / "grading" / "checks" / "lab02" / "__init__.py").read_bytes())
    url = os.environ.get("DATABASE_URL", "")
    tried("the superuser", lambda: psycopg.connect(make_conninfo(url, user="postgres"), connect_timeout=10).close())
    tried("another database", lambda: psycopg.connect(make_conninfo(url, dbname="postgres"), connect_timeout=10).close())
    if sys.argv[0].endswith(("faults/worker.py", "faults/ticking.py")):  # a fault run's worker, a lab 08 scheduler
        from course.infra import processes
        spec = processes.unpickle(sys.argv[1])
        tried("the history's file", lambda: open(spec["history"], "a").close())
        if "calm" in spec:
            tried("the fault run's calm switch", lambda: open(spec["calm"], "a").close())
    os.environ["COURSE_PROBE_GOT"] = ", ".join(got)
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", "MARK"])
        os._exit(0)
if os.environ.get("COURSE_PROBE_GOT"):  # every call, not only the first: a retried job must not pass
    raise RuntimeError("the probe got " + os.environ["COURSE_PROBE_GOT"])
""".replace("MARK", MARK)

DOORS = {"02": "02.send_receipt", "08": "08.tick", "12": "12.invoice_worker", "13": "13.keep_alive"}


def probed(source: str) -> str:
    """The answer's function, with the probe as its first statement (indented as its BEGIN SOLUTION line)."""
    return re.sub(r"\n([ \t]*)# BEGIN SOLUTION\n", lambda m: f"\n{m[1]}exec({PROBE!r}, {{}})\n{m[0][1:]}",
                  source, count=1)


def _marked() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if MARK.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.slow
@pytest.mark.timeout(3600)  # a backstop: each notebook's limit below bounds a hang
def test_the_labs_own_processes_hold_every_door(tmp_path, sentinel):
    if not confine.isolation()[0]:
        pytest.skip("no sandbox on this machine: `course grade` would refuse without --trust-submissions")
    for lab_id, exercise in DOORS.items():
        lab = COURSE.lab(lab_id)
        others = {e.id for e in lab.exercises} - {exercise}
        save(notebook(lab_id, edit={exercise: probed}, drop=others), tmp_path / "class" / "mal" / lab.notebook)
    save(notebook("02", drop={e.id for e in COURSE.lab("02").exercises} - {"02.send_receipt"}),
         tmp_path / "class" / "ana" / COURSE.lab("02").notebook)
    graded = grade.grade(tmp_path / "class", tmp_path / "out", jobs=2, timeout_s=600, seed=23, progress=False,
                         trust=False)
    rows = graded.rows
    said = "\n".join(f"{r.student} {r.exercise}: {r.status} {r.first_failing} {r.detail}" for r in rows)
    for lab_id, exercise in DOORS.items():
        row = lab_rows(rows, "mal", lab_id)[exercise]
        assert row.passed and row.checks_passed == row.checks_total, said  # no probe got anything
    assert lab_rows(rows, "ana", "02")["02.send_receipt"].passed, said
    assert not _marked(), "a daemon outlived the grader"
    from course.infra import db

    with db.connect(sentinel) as conn:
        assert conn.execute("SELECT count(*) FROM precious").fetchone()[0] == 1
