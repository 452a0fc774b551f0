"""What lab 14's verdict reads from the server, not from the workers: in class grading a worker's process
runs the learner's pieces, which could rewrite what it writes in the run's history.

The workers log in as the run's own role (exam.sql's worker_role), which may do what a queue does to the
jobs and add ledger and dead-letter rows, and nothing the exam reads besides: it cannot change the
ledger, write the claim or delete logs, or run programs on the server's machine. A job deleted by another
session than the one whose claim holds its lease is in delete_log (a trigger with its owner's rights),
and the verdict calls it a stale ack even when the history says the ack was with the job's own lease.
"""

import psycopg
import pytest
from psycopg.types.json import Jsonb

from course.grading.exam import soak
from course.grading.exam.faults import SCHEMA, Database
from course.grading.exam.soak import Event, Run
from course.grading.exam.verdict import judge
from course.grading.exam.worker import CLAIMING
from course.infra.private_server import PrivateServer
from course.programs import sql

pytestmark = [pytest.mark.timeout(300)]

CLAIM = ("UPDATE jobs SET locked_until = now() + interval '30 seconds', attempts = attempts + 1 "
         "WHERE id = %s RETURNING attempts")


@pytest.fixture(scope="module")
def server():
    with PrivateServer(prefix="exam-log-") as private:
        database = Database(private)
        with database.connect() as setup:
            setup.execute(f"CREATE SCHEMA {SCHEMA}")
            setup.execute(sql.query("exam", "schema"))
            setup.execute(sql.query("exam", "watch_deletes"))
            workers = soak._workers_role(setup, database.conninfo)
        yield database, workers


@pytest.fixture
def jobs(server):
    database, workers = server
    with database.connect() as conn:
        conn.execute("TRUNCATE jobs, claim_log, delete_log, ledger, dead_jobs")
        ids = [conn.execute("INSERT INTO jobs (type, payload) VALUES ('t', %s) RETURNING id", [Jsonb({})]).fetchone()[0]
               for _ in range(3)]
    return database, workers, ids


def worker(conninfo: str, name: str) -> psycopg.Connection:
    return psycopg.connect(conninfo, autocommit=True, application_name=name)


def test_a_delete_by_another_session_than_the_claims_is_logged_with_both(jobs):
    database, workers, (mine, stolen, _) = jobs
    with worker(workers, "examworker-1-0") as a, worker(workers, "examworker-1-1") as b:
        a.execute(CLAIM, [mine])
        a.execute(CLAIM, [stolen])
        a.execute("DELETE FROM jobs WHERE id = %s", [mine])  # its own ack
        b.execute("DELETE FROM jobs WHERE id = %s", [stolen])  # an ack by id alone, of a job A holds
        pids = {a.info.backend_pid: "a", b.info.backend_pid: "b"}
    rows = database.query("SELECT job_id, attempt, backend, claimed_by FROM delete_log ORDER BY at")
    assert [(job, attempt, pids[backend], pids[claimer]) for job, attempt, backend, claimer in rows] == [
        (mine, 1, "a", "a"), (stolen, 1, "b", "a")]


def test_the_workers_role_cannot_change_what_the_exam_reads(jobs):
    database, workers, (job, _, _) = jobs
    with database.connect() as conn:
        conn.execute("INSERT INTO ledger (job_id, worker, attempt) VALUES (%s, 0, 1)", [job])
    refused = []
    with worker(workers, "examworker-1-0") as conn:
        assert conn.execute("SELECT current_setting('is_superuser')").fetchone()[0] == "off"
        for statement in ("DELETE FROM ledger", "UPDATE ledger SET attempt = 9",
                          "INSERT INTO claim_log (job_id, attempt, was_free) VALUES (1, 1, true)", "DELETE FROM claim_log",
                          "INSERT INTO delete_log (job_id, attempt) VALUES (1, 1)", "DELETE FROM delete_log",
                          "ALTER TABLE jobs DISABLE TRIGGER ALL", "COPY (SELECT 1) TO PROGRAM 'true'",
                          "DELETE FROM dead_jobs"):
            try:
                conn.execute(statement)
            except psycopg.errors.InsufficientPrivilege:
                refused.append(statement)
    assert len(refused) == 9, refused
    assert database.query("SELECT count(*) FROM ledger")[0][0] == 1


def a_stale_ack(history_says_ours: bool, deletes: list[dict]) -> Run:
    """Job 1: worker 0 claimed it (attempt 1), lost its lease to worker 1 (attempt 2), then acked it."""
    events = [Event(t=1.0, pid=1, kind="claimed", worker=0, job=1, attempt=1),
              Event(t=3.0, pid=2, kind="claimed", worker=1, job=1, attempt=2),
              Event(t=3.5, pid=1, kind="acked", worker=0, job=1, attempt=1,
                    facts={"ours": history_says_ours, "deleted": True, "returned": True, "exists_before": True})]
    return Run(7, {1: "ordinary"}, events, ledger={1: [(0, 1)]}, dead={}, stuck={}, claims=[], timed_out=False,
               elapsed_s=5.0, kills=0, freezes=1, deletes=deletes)


STALE = {"job_id": 1, "attempt": 2, "backend": 101, "claimed_by": 202, "app": "examworker-7-0", "t": 3.5}


def test_a_stale_ack_the_history_hides_is_judged_from_the_servers_log():
    verdict = judge(a_stale_ack(history_says_ours=True, deletes=[STALE]))
    assert [(v.piece, v.job) for v in verdict.violations] == [("04.fenced_ack", 1)], verdict.render()
    assert "deleted by another session" in verdict.violations[0].what


def test_a_stale_ack_both_saw_is_said_once():
    verdict = judge(a_stale_ack(history_says_ours=False, deletes=[STALE]))
    assert [(v.piece, v.job) for v in verdict.violations] == [("04.fenced_ack", 1)], verdict.render()
    assert "under its new owner" in verdict.violations[0].what


@pytest.mark.parametrize("delete", [
    {**STALE, "backend": 202},  # the claim's own session: an ack with its lease
    {**STALE, "claimed_by": None},  # nobody's claim made that attempt (a claim that deletes: 03.claim's)
    {**STALE, "app": "examworker-7-0" + CLAIMING},  # inside a claim piece: 03.claim's to answer for
], ids=["own_session", "never_claimed", "inside_a_claim"])
def test_a_delete_that_is_no_stale_ack_is_not_blamed_on_04_fenced_ack(delete):
    verdict = judge(a_stale_ack(history_says_ours=True, deletes=[delete]))
    assert not [v for v in verdict.violations if v.piece == "04.fenced_ack"], verdict.render()


def test_a_ledger_or_dead_letter_row_written_apart_from_its_jobs_delete_hides_no_lost_job(jobs):
    """A piece runs in a worker, as the workers' role, which must add ledger and dead-letter rows: one that
    loses a job and then writes its row (even with the deleting transaction's id, which it can know) hides
    nothing. Only rows committed with their job's delete count: an ack's, a burial's."""
    database, workers, (acked, lost, poison) = jobs
    with worker(workers, "examworker-1-0") as conn:
        for job in (acked, lost, poison):
            conn.execute(CLAIM, [job])
        with conn.transaction():  # the worker's ack: the effect booked, then the job deleted
            conn.execute(sql.query("exam", "book"), {"id": acked, "worker": 0, "attempt": 1})
            conn.execute("DELETE FROM jobs WHERE id = %s", [acked])
        with conn.transaction():  # a piece's wrong ack: the job deleted, no effect, no burial
            conn.execute("DELETE FROM jobs WHERE id = ANY(%s)", [[lost, poison]])
            deleting = conn.execute("SELECT pg_current_xact_id()").fetchone()[0]
        with conn.transaction():  # ... and its cover, in the worker's process
            conn.execute("INSERT INTO ledger (job_id, worker, attempt, xact) VALUES (%s, 0, 1, %s)", [lost, deleting])
            conn.execute("INSERT INTO dead_jobs (id, type, payload, attempts, reason, xact) "
                         "VALUES (%s, 't', '{}', 3, 'max_attempts', %s)", [poison, deleting])
    ledger, dead, apart = soak.effects(database, started_at=0.0)
    assert ledger == {acked: [(0, 1)]} and dead == {}
    assert sorted((row["table"], row["job_id"]) for row in apart) == [("dead_jobs", poison), ("ledger", lost)]
    run = Run(7, {acked: "ordinary", lost: "ordinary", poison: "poison"}, [], ledger=ledger, dead=dead, stuck={},
              claims=[], timed_out=False, elapsed_s=5.0, kills=0, freezes=0, apart=apart)
    verdict = judge(run)
    assert verdict.lost == [lost], verdict.render()
    assert verdict.poison_wrong == [(poison, "gone without being dead-lettered")], verdict.render()
    assert "committed apart from the job's delete" in verdict.timeline(lost)
