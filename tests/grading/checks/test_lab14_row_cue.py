"""Lab 14's row-lock cue blames a claim that waits for the row it holds, and nothing else.

The cue (soak._hold_a_row) locks one waiting job's row the way a support agent's open transaction would,
and notes `claim_waited` when a worker's claim waits for that lock. Each test here runs the cue against
the exam's own tables, with a session of the test's standing in for a worker, and ends the cue the way
a run does when the workers got past the row (three claims each in claim_log): the cue's last look
happens while the test's session is known to wait, so what it notes is what it decided, never luck.
"""

import threading
import time
from types import SimpleNamespace

import psycopg
import pytest
from psycopg.types.json import Jsonb

from course.grading.exam import soak
from course.grading.exam.faults import SCHEMA, Database
from course.grading.exam.worker import claiming
from course.infra import eventlog
from course.infra.private_server import PrivateServer
from course.programs import sql

pytestmark = [pytest.mark.timeout(300)]

SEED = 7
WAIT_LIMIT_S = 120.0  # for what the test waits on: it is a bound, not a measurement


@pytest.fixture(scope="module")
def box():
    with PrivateServer(prefix="exam-cue-") as server:
        database = Database(server)
        with database.connect() as setup:
            setup.execute(f"CREATE SCHEMA {SCHEMA}")
            setup.execute(sql.query("exam", "schema"))
        yield database


@pytest.fixture
def jobs(box):
    with box.connect() as conn:
        conn.execute("TRUNCATE jobs, claim_log")
        for position in range(5):
            conn.execute("INSERT INTO jobs (type, payload, run_at) VALUES ('t', %s, now() - make_interval(secs => %s))",
                         [Jsonb({}), 5 - position])
    return box


def worker_name(slot: int) -> str:
    return f"examworker-{SEED}-{slot}"


def wait_for(what, condition):
    deadline = time.monotonic() + WAIT_LIMIT_S
    while not condition():
        assert time.monotonic() < deadline, f"waited {WAIT_LIMIT_S:.0f} s for {what}"
        time.sleep(0.02)


def run_the_cue(box, tmp_path, act):
    """Start the cue; once it holds its row, `act(conn, job_id)` runs in a session named as worker 1
    (a thread of its own: it may wait for the row); once that session waits for a lock, the workers
    are shown to have got past the row, and the cue ends. The cue's notes."""
    history = tmp_path / "history.jsonl"
    supervisor = SimpleNamespace(history=history, started_at=time.time())
    done = threading.Event()
    cue = threading.Thread(target=soak._hold_a_row, args=(box, supervisor, done), daemon=True)
    cue.start()
    notes = lambda: eventlog.read(history, soak.Event) if history.exists() else []  # noqa: E731
    wait_for("the cue to lock a row", lambda: any(e.kind == "row_locked" for e in notes()))
    job_id = next(e.job for e in notes() if e.kind == "row_locked")
    worker = psycopg.connect(box.conninfo, autocommit=True, application_name=worker_name(1))
    acting = threading.Thread(target=act, args=(worker, job_id), daemon=True)
    acting.start()
    with box.connect() as watcher:
        # The cue may see the wait first and release the row at once (it polls too): then the wait is over
        # before this look, and the cue's note says it was seen
        wait_for("the worker's session to wait for a lock", lambda: any(
            e.kind in ("claim_waited", "row_released") for e in notes()) or watcher.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND wait_event_type = 'Lock'",
            [worker.info.backend_pid]).fetchone()[0] == 1)
        for slot in range(soak.WORKERS):  # the workers got past the row: the cue's next look is its last
            for _ in range(3):
                watcher.execute("INSERT INTO claim_log (job_id, attempt, was_free, app) VALUES (0, 1, true, %s)",
                                [worker_name(slot)])
    cue.join(WAIT_LIMIT_S)
    assert not cue.is_alive()
    acting.join(WAIT_LIMIT_S)
    worker.close()
    return job_id, notes()


def the_ack_of(conn, job_id):
    """What the exam's worker does before an ack: not a claim."""
    with conn.transaction():
        conn.execute(sql.query("exam", "hold_row"), {"id": job_id})


def a_claim_without_skip_locked(conn, job_id):
    with conn.transaction(), claiming(conn, worker_name(1)):
        conn.execute("UPDATE jobs SET attempts = attempts + 1 WHERE id = (SELECT id FROM jobs ORDER BY run_at "
                     "LIMIT 1 FOR UPDATE)")


def test_a_worker_statement_that_is_not_its_claim_is_not_blamed(jobs, tmp_path):
    _, notes = run_the_cue(jobs, tmp_path, the_ack_of)
    assert [e.kind for e in notes] == ["row_locked", "row_released"], notes


def test_a_claim_that_waits_for_the_row_is_blamed_and_named(jobs, tmp_path):
    job_id, notes = run_the_cue(jobs, tmp_path, a_claim_without_skip_locked)
    assert [e.kind for e in notes] == ["row_locked", "claim_waited", "row_released"], notes
    waited = notes[1]
    assert waited.job == job_id and waited.facts == {"worker": worker_name(1)}, waited
    assert soak.claiming_piece(waited.facts["worker"]) == "03.claim"


def test_the_cue_locks_only_the_row_it_names(jobs):
    # A worker has claimed the oldest job: the cue takes the next one, and every other row stays free.
    with jobs.connect() as conn:
        oldest = conn.execute("UPDATE jobs SET attempts = 1 WHERE id = (SELECT min(id) FROM jobs) RETURNING id").fetchone()[0]
    holder = jobs.connect(autocommit=False)
    try:
        job_id = soak._lock_a_waiting_job(holder, threading.Event())
        assert job_id == oldest + 1
        with jobs.connect() as other:
            free = other.execute("SELECT id FROM jobs WHERE id <> %s ORDER BY id FOR UPDATE SKIP LOCKED",
                                 [job_id]).fetchall()
            assert [i for i, in free] == [oldest, *range(oldest + 2, oldest + 5)]
    finally:
        holder.close()
