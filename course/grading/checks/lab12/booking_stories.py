"""12.booking_worker's world: what the email provider answers at each attempt (a Plan), the stories of jobs
the check tells and draws, the provider with its own log and the tables a story installs, and the reference
worker the answer is compared with."""

from __future__ import annotations

import contextlib
import random
from dataclasses import dataclass

import psycopg

from course.core import queue
from course.core.queue import PermanentError
from course.programs import stayhub
from course.programs.email_provider import EmailRejected, ProviderTimeout, ProviderUnavailable

from course.grading.checks.lab12.stays import store_bookings


STORIES = 4  # the first two are told on purpose (every answer the provider gives; a lease run out); then seeded

# What the provider answers at one attempt (the handler raises the same exceptions as the real one).
SENT, UNAVAILABLE, RETRY_AFTER, TIMEOUT, BUG, REJECTED, OUTLIVED = (
    "sent", "503", "429 Retry-After", "timeout", "a bug of ours", "422 invalid address", "sent after the lease ran out")
GONE = "the booking is gone (a PermanentError of ours, not the provider's)"
OUTLIVED_503 = "503 after the lease ran out"
TRANSIENT = (UNAVAILABLE, RETRY_AFTER, TIMEOUT, BUG)
RETRY_AFTER_S = (3.0, 45.0, 400.0)  # below a ceiling, above one, above the 5-minute cap


@dataclass(frozen=True)
class Plan:
    """One job: what the provider answers at each attempt (the last answer repeats), the attempts it has had
    before the story starts, its budget, and its priority."""

    answers: tuple[str, ...]
    attempts: int = 0
    max_attempts: int = stayhub.MAX_ATTEMPTS
    priority: int = 0
    retry_after_s: float = 3.0

    def answer(self, attempt: int) -> str:
        return self.answers[min(attempt - self.attempts, len(self.answers)) - 1]

    def told(self) -> str:
        said = " then ".join(a if a != RETRY_AFTER else f"429 Retry-After {self.retry_after_s:g} s" for a in self.answers)
        return (f"{said}{' (and so on)' if self.answers[-1] not in (SENT, OUTLIVED) else ''}"
                f"{f', {self.attempts} attempt(s) already' if self.attempts else ''}"
                f"{f', max_attempts {self.max_attempts}' if self.max_attempts != stayhub.MAX_ATTEMPTS else ''}"
                f"{f', priority {self.priority}' if self.priority else ''}")


@dataclass(frozen=True)
class Story:
    jobs: tuple[Plan, ...]
    lease_s: float = stayhub.LEASE_S  # what work_one is given: StayHub's 60 s, or not

    def told(self, first: int) -> str:
        lease = f"work_one(conn, handler, lease_s={self.lease_s:g}); " if self.lease_s != stayhub.LEASE_S else ""
        return lease + "; ".join(f"job {first + n}: {plan.told()}" for n, plan in enumerate(self.jobs))


def every_answer(rng: random.Random) -> Story:
    return Story((Plan((SENT,)), Plan((UNAVAILABLE, SENT)), Plan((REJECTED,)), Plan((UNAVAILABLE,), attempts=2, max_attempts=3),
                  Plan((RETRY_AFTER, SENT), retry_after_s=45.0), Plan((TIMEOUT, BUG, SENT)), Plan((GONE,))),
                 lease_s=90.0)


def lease_runs_out(rng: random.Random) -> Story:
    return Story((Plan((OUTLIVED,)), Plan((OUTLIVED_503,)), Plan((SENT,), priority=-1)))


def seeded(rng: random.Random) -> Story:
    def plan() -> Plan:
        answers = tuple(rng.choice((SENT, UNAVAILABLE, RETRY_AFTER, TIMEOUT, BUG, REJECTED, OUTLIVED))
                        for _ in range(rng.randint(1, 3)))
        budget = rng.choice((1, 2, 3, stayhub.MAX_ATTEMPTS))
        return Plan(answers, attempts=rng.randint(0, budget - 1), max_attempts=budget,
                    priority=rng.choice((0, 0, 1, -1)), retry_after_s=rng.choice(RETRY_AFTER_S))
    return Story(tuple(plan() for _ in range(rng.randint(2, 5))))


def stories(seed: int) -> list[Story]:
    rng = random.Random(seed)
    return [every_answer(rng), lease_runs_out(rng)] + [seeded(rng) for _ in range(STORIES - 2)]


# -- the provider and the tables ---------------------------------------------------------------------------


# The job's row as a claim leaves it: after the other worker's claim, a stale worker may change none of it.
CLAIMED_COLUMNS = ("lease_token", "run_at", "attempts", "max_attempts", "last_error", "payload", "priority", "type")
CLAIMED_ROW = f"SELECT {', '.join(CLAIMED_COLUMNS)} FROM jobs WHERE id = %s"


class Provider:
    """The email provider the check runs, as the handler the answer is given: it loads the booking on the
    worker's connection, writes each call to its own log (on the check's session) and answers as the
    story plans. OUTLIVED: while it works, the lease runs out and another worker claims the job."""

    def __init__(self, box, plans: dict[int, Plan]):
        self.box, self.plans, self.other = box, plans, {}
        self.as_claimed: dict[int, tuple] = {}  # job id -> its row as the other worker's latest claim left it

    def finish_others(self) -> None:
        """The other worker, which claimed a job whose lease ran out, sends it and acks it."""
        for job_id, token in self.other.items():
            self.box.conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job_id, token])
        self.other.clear()

    def _claim_meanwhile(self, job_id: int) -> None:
        """The lease runs out and another worker claims the job; it cannot while the worker's own open
        transaction still locks the row (then the job stays the worker's: a lock the check does not wait out)."""
        with contextlib.suppress(psycopg.errors.LockNotAvailable), self.box.conn.transaction():
            self.box.conn.execute("SET LOCAL lock_timeout = '200ms'")
            row = self.box.conn.execute(
                "UPDATE jobs SET lease_token = gen_random_uuid(), attempts = attempts + 1, "
                "run_at = now() + interval '60 seconds' WHERE id = %s RETURNING lease_token", [job_id]).fetchone()
            if row:
                self.other[job_id] = row[0]
                self.as_claimed[job_id] = self.box.conn.execute(CLAIMED_ROW, [job_id]).fetchone()

    def handler(self):
        def send_confirmation_email(job, conn):
            booking_id = job.payload["booking_id"]
            conn.execute("SELECT guest_id, room_id FROM bookings WHERE id = %s", [booking_id]).fetchone()
            state = self.box.conn.execute("SELECT state FROM pg_stat_activity WHERE pid = %s",
                                          [conn.info.backend_pid]).fetchone()
            plan = self.plans[job.id]
            answer = plan.answer(job.attempts)
            self.box.conn.execute(
                "INSERT INTO provider_log (job_id, attempt, answer, caller_state, lease_left_s) VALUES (%s, %s, %s, %s, "
                "(SELECT extract(epoch FROM run_at - now())::float FROM jobs WHERE id = %s))",
                [job.id, job.attempts, answer, state[0] if state else None, job.id])
            if answer == OUTLIVED:
                self._claim_meanwhile(job.id)
            elif answer == OUTLIVED_503:
                self._claim_meanwhile(job.id)
                raise ProviderUnavailable("503 Service Unavailable", 503, None)
            elif answer == GONE:
                raise PermanentError(f"booking {booking_id} does not exist: nothing to do, ever")
            elif answer == UNAVAILABLE:
                raise ProviderUnavailable("503 Service Unavailable", 503, None)
            elif answer == RETRY_AFTER:
                raise ProviderUnavailable(f"429 Too Many Requests (Retry-After: {plan.retry_after_s:g})", 429,
                                          plan.retry_after_s)
            elif answer == TIMEOUT:
                raise ProviderTimeout("no answer within 5 s")
            elif answer == BUG:
                raise KeyError("guest_email")
            elif answer == REJECTED:
                raise EmailRejected("422 invalid address", 422)
        return send_confirmation_email


def install(box, story: Story) -> tuple[list[int], dict[int, Plan]]:
    """Empty tables; a confirmed booking and its email job per plan. Returns the job ids and their plans."""
    box.conn.execute("TRUNCATE bookings, jobs, dead_jobs, confirmations, invoices, channel_syncs, card_authorisations "
                     "RESTART IDENTITY CASCADE")
    box.conn.execute("CREATE UNLOGGED TABLE IF NOT EXISTS provider_log (n serial, job_id bigint, attempt int, answer text, "
                     "caller_state text, lease_left_s float, at timestamptz NOT NULL DEFAULT clock_timestamp())")
    box.conn.execute("ALTER TABLE provider_log ADD COLUMN IF NOT EXISTS lease_left_s float")
    box.conn.execute("TRUNCATE provider_log")
    bookings = store_bookings(box.conn, [1 + n % 3 for n in range(len(story.jobs))])
    plans = {}
    for booking_id, plan in zip(bookings, story.jobs):
        job_id = box.conn.execute(
            "INSERT INTO jobs (type, payload, priority, attempts, max_attempts, run_at) VALUES "
            "('send_confirmation_email', jsonb_build_object('booking_id', %s::bigint), %s, %s, %s, "
            "now() - interval '1 second') RETURNING id",
            [booking_id, plan.priority, plan.attempts, plan.max_attempts]).fetchone()[0]
        plans[job_id] = plan
    return list(plans), plans


def read(box) -> dict:
    """Per job: where it is and what is stored of it (a retry's wait apart), and the provider's log."""
    jobs = {row[0]: {"where": "waiting" if row[2] is None else "claimed", "attempts": row[1],
                     "last error": row[3]} for row in box.conn.execute(
        "SELECT id, attempts, lease_token, last_error FROM jobs ORDER BY id")}
    for job_id, attempts, reason, error in box.conn.execute("SELECT id, attempts, reason, error FROM dead_jobs"):
        jobs[job_id] = {"where": "dead", "attempts": attempts, "reason": reason, "error": error}
    log = [tuple(row) for row in box.conn.execute("SELECT job_id, attempt, answer FROM provider_log ORDER BY n")]
    return {"jobs": jobs, "log": log}


def waits(box) -> dict[int, tuple[float, float]]:
    """Each job handed back for a retry: seconds until it runs again, and seconds from its handler's last call
    to then (the wait drawn, plus the moments the worker took to hand it back: never less than the draw)."""
    return {job_id: (until, drawn) for job_id, until, drawn in box.conn.execute(
        "SELECT id, extract(epoch FROM run_at - now())::float, "
        "       extract(epoch FROM run_at - (SELECT max(at) FROM provider_log WHERE job_id = jobs.id))::float "
        "  FROM jobs WHERE lease_token IS NULL AND last_error IS NOT NULL")}


def time_passes(box) -> None:
    """Every retry's wait, and every lease, runs out."""
    box.conn.execute("UPDATE jobs SET run_at = now() - interval '1 second'")


# -- the reference ---------------------------------------------------------------------------------------------


def reference(conn, handler, lease_s=stayhub.LEASE_S):
    """The solution's work_one (a test asserts they do the same)."""
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:  # noqa: BLE001 (every failure is routed: nothing a handler does wedges the queue)
        if isinstance(error, PermanentError):
            queue.bury(conn, job, "permanent", error)
        elif job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            delay_s = queue.backoff_delay(job.attempts)
            if getattr(error, "retry_after_s", None):
                delay_s = max(delay_s, error.retry_after_s)
            queue.retry(conn, job, delay_s, error)
    else:
        queue.ack(conn, job)
    return job.id


def bounds(plan: Plan, attempt: int) -> tuple[float, float]:
    """The wait the rules allow after a transient failure at `attempt`."""
    ceiling = min(300.0, 2.0 ** (attempt - 1))
    if plan.answer(attempt) == RETRY_AFTER:
        return plan.retry_after_s, max(plan.retry_after_s, ceiling)
    return 0.0, ceiling
