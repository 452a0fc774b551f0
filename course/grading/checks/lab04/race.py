"""Lab 04's checks, with another worker between the answer's statements: worker B claims the job, an
operator's transaction holds its row, zombie A calls with its old token and then B with its own. The answer
and the reference meet the same interleavings (course/grading/interleave.py); the first rule the answer
breaks there is reported with the interleaving that shows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import psycopg

from course.grading import differential as diff
from course.grading import interleave
from course.grading.snapshot import At, mismatches
from course.grading.trial import short
from course.grading.checks.lab04 import (ACK_TRUE, B_TOKEN, BEAT_TRUE, DELETES, EXTENDS, OURS, Jobs, Judge, Row,
                                         _token, _value, install, the_job, truth)


RACE_SLACK_S = 1.0  # runs with real commits and threads: times written and read a moment apart
B_LEASE_S = 20  # worker B's lease, unlike any lease_s the answer is given in the race


def _b_claims(then: str | None) -> Callable[[psycopg.Connection], str]:
    """Job 1's lease runs out and worker B claims it (a new token); then B hands it back, or acks it."""
    def act(conn: psycopg.Connection) -> str:
        conn.execute("UPDATE jobs SET run_at = now() - interval '1 second' WHERE id = 1")
        claimed = conn.execute(
            "UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = %s, attempts = attempts + 1, "
            "claimed_by = 'worker B', claimed_at = now() WHERE id = 1 AND run_at <= now() RETURNING id",
            [B_LEASE_S, B_TOKEN]).fetchone() is not None
        if claimed and then == "retry":
            conn.execute("UPDATE jobs SET run_at = now() + interval '60 seconds', lease_token = NULL, claimed_by = NULL, "
                         "last_error = 'HTTP 503' WHERE id = 1 AND lease_token = %s", [B_TOKEN])
        elif claimed and then == "ack":
            conn.execute("DELETE FROM jobs WHERE id = 1 AND lease_token = %s", [B_TOKEN])
        return "B claimed job 1" if claimed else "B found nothing to claim"
    return act


ACTS = [interleave.Act("your lease ran out and worker B claimed job 1 (a new token)", _b_claims(None)),
        interleave.Act("your lease ran out, worker B claimed job 1, failed and handed it back for a retry",
                       _b_claims("retry")),
        interleave.Act("your lease ran out, worker B claimed job 1 and acked it", _b_claims("ack"))]


def _locked_by(heartbeat: bool) -> interleave.Hold:
    """Job 1's row locked for a moment by a session that does not claim it, the lease still ours: only the
    token says whose the job is, and a locked row is not a lost lease."""
    if heartbeat:
        return interleave.InTransaction(
            "another session held job 1's row locked (SELECT ... FOR UPDATE, its transaction still open) when "
            "your beat ran; the lease was still yours", lambda conn: conn.execute(
                "SELECT id FROM jobs WHERE id = 1 FOR UPDATE").fetchone())
    return interleave.InTransaction(
        "a heartbeat thread with a connection of its own was extending job 1's lease (its UPDATE not yet "
        "committed, the row locked) when your ack ran; the lease was still yours", lambda conn: conn.execute(
            "UPDATE jobs SET run_at = now() + interval '20 seconds' WHERE id = 1 AND lease_token = %s",
            [OURS]).rowcount)


LOCKED_NOTE = ("the row was only locked for a moment, and the lease was still yours: the reference's statement "
               "waits for the lock and then {does}. An answer that skips a locked row (SKIP LOCKED) or gives up "
               "on it (NOWAIT, a lock_timeout, a try-lock) {fails}; let the statement wait.\n")
BETWEEN_NOTE = ("worker B's move fell between your statements: what your first statement checked was no longer "
                "true when the next one ran. Check and act in one statement (... WHERE id = ... AND lease_token "
                "= ...), so no one can come between them.\n")


def race(judge: Judge, box, *, heartbeat: bool):
    """Each of worker B's moves before each of the answer's statements after its first; then the job's row
    locked for a moment by another session while the answer runs."""
    jobs = Jobs((Row(1, 30.0), Row(2, 3600.0, "theirs", payload={"order_id": 9813})), 1,
                lease_s=5.0 if heartbeat else None)
    if judge.compare(jobs) is not None:  # wrong on these jobs alone: the search above says so, not a race
        return None
    arena = interleave.Arena(box.conn, box.connect, judge.reader, install, truth)
    try:
        found = interleave.explore(arena, jobs, answer=judge.learner(jobs), reference=judge.reference(jobs),
                                   acts=[(act, act) for act in ACTS], holds=[(_locked_by(heartbeat),) * 2],
                                   judge=lambda s, ours, allowed: judge.judge(s, ours, allowed, slack_s=RACE_SLACK_S))
        if found is None:
            found = _after_a_zombie(judge, arena, heartbeat=heartbeat)
    finally:
        arena.close()
    if found is None:
        return None
    finding, told = found
    if isinstance(told, str):  # after a zombie: its note is its own
        return finding, told
    note = BETWEEN_NOTE if told.between else LOCKED_NOTE.format(
        does="extends the lease" if heartbeat else "deletes the job",
        fails="says the lease is lost while it is still yours" if heartbeat else "leaves a finished job to run again")
    return replace(finding, note=note + (finding.note or "")), told


AFTER_A_ZOMBIE_NOTE = ("worker A's call, refused, ran first on A's connection and left something behind that kept "
                       "worker B out (a lock it never let go: pg_advisory_lock, a transaction left open?). B's lease is "
                       "current, so B's call must {does}: take nothing that outlives your statement")


def _after_a_zombie(judge: Judge, arena: interleave.Arena, *, heartbeat: bool) -> tuple[diff.Finding, str] | None:
    """Zombie A calls the answer with its old token (refused: B holds the job now), then worker B calls it
    on its own connection with its own token: B's call must do what the reference does for B."""
    jobs = Jobs((Row(1, 30.0, "theirs"),), 1, lease_s=5.0 if heartbeat else None)
    arena.reset(jobs)
    before, b_conn = arena.read(), arena.session("B").conn
    try:
        judge.call(arena.conn, *((the_job(jobs), jobs.lease_s) if heartbeat else (1, OURS)))
        if mismatches(arena.read(), before, slack_s=RACE_SLACK_S):
            return None  # the zombie's call was not refused: the search above judges that
        if heartbeat:
            b_job = replace(the_job(jobs), lease_token=_token("theirs", 1))
            done = judge.call(b_conn, b_job, jobs.lease_s)
        else:
            done = judge.call(b_conn, 1, _token("theirs", 1))
    finally:
        for conn in (arena.conn, b_conn):
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
    row = arena.read()["jobs"].get((1,))
    call = "extend_lease(B's connection, job 1 as B claimed it, 5)" if heartbeat else \
        "ack(B's connection, 1, B's lease_token)"
    told = (f"job 1 (worker B's lease, ending in 30 s); zombie A's call first, with its old token, on A's "
            f"connection (refused); then {call}")
    raised = f"yours raised {done.error}; " if done.error else ""
    if heartbeat:
        end = row["run_at"] if row is not None else None
        extended = isinstance(end, At) and abs(end.seconds - 5.0) <= RACE_SLACK_S
        if extended and truth(done.value) and not done.error:
            return None
        got = "job 1's run_at: " + (_value(row["run_at"]) if row is not None else "no such row")
        return diff.Finding(EXTENDS if not extended else BEAT_TRUE, got=got if not extended else short(done.value),
                            expected="job 1's run_at: in 5 s" if not extended else "something true",
                            note=raised + AFTER_A_ZOMBIE_NOTE.format(does="extend its lease")), told
    if row is None and truth(done.value) and not done.error:
        return None
    return diff.Finding(DELETES if row is not None else ACK_TRUE,
                        got="the job is still there" if row is not None else (done.error or short(done.value)),
                        expected="the job deleted" if row is not None else "something true",
                        note=raised + AFTER_A_ZOMBIE_NOTE.format(does="delete the job")), told
