"""11.oldest_waiting's differential part (issue 22): jobs tables drawn from every state the statement's table
names, compared with the reference statement (course.core.monitoring) in one transaction."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, replace

import psycopg
from psycopg import sql

from course.core import monitoring

from course.grading import differential as diff
from course.grading import interleave
from course.grading.snapshot import Reader
from course.grading.trial import Attempt, Trial, short

TOLERANCE_S = 5.0  # an answer may read the clock (clock_timestamp()) instead of now(): ages are many seconds apart
QUEUE_NAMES = ("receipts", "emails", "invoices", "syncs", "newsletter", "reminders", "wakeups", "welcomes", "reviews")


def _numbers(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in value.items())


# The same exercise, differential (issue 22): jobs tables drawn from every state the statement's table
# names (ready, due exactly now, running, left by a dead worker, waiting for a retry, scheduled for
# later) in one to four queues, due seconds to days ago, enqueued ahead (created before due_at) or
# back-dated (run_at given in the past: due before it was created), attempts up to the thousands; the
# answer and the reference statement run in one transaction (now() stands still) and are compared.

WAITING_SEED = 11
WAITING_SCENARIOS = 40
OW_SECONDS = "each queue's value is the age of its oldest waited-for job, in seconds, however long ago (days too)"
OW_WHO = "every job someone waits for counts: ready, due exactly now, running, left by a dead worker, retrying"
OW_NOT_YET = "a queue whose jobs are all scheduled for later is left out of the dict (not listed, not 0)"
OW_DUE_AT = "measured from due_at: not from run_at, not from created_at (back-dated jobs too)"
WAITING_CHECKS = (OW_SECONDS, OW_WHO, OW_NOT_YET, OW_DUE_AT)
STATES = ("ready", "due now", "running", "dead worker", "retrying", "scheduled")


@dataclass(frozen=True)
class Job:
    queue: str
    state: str
    due_ago: float  # seconds since due_at (negative: due in the future)
    created_before_due: float  # created_at = due_at - this (negative: back-dated, due before it was made)
    attempts: int

    def told(self) -> str:
        due = f"due {self.due_ago:g} s ago" if self.due_ago >= 0 else f"due in {-self.due_ago:g} s"
        made = (f"enqueued {self.created_before_due:g} s ahead" if self.created_before_due > 0 else
                f"back-dated: enqueued {-self.created_before_due:g} s after its due_at" if self.created_before_due < 0
                else "")
        return f"{self.queue}: {self.state}, {due}{', ' + made if made else ''}, attempts {self.attempts}"

    def row(self) -> dict:
        run_at = {"ready": -self.due_ago, "due now": 0.0, "running": 30.0, "dead worker": -5.0, "retrying": 60.0,
                  "scheduled": -self.due_ago}[self.state]
        leased = self.state in ("running", "dead worker")
        return {"queue": self.queue, "due": -self.due_ago, "created": -self.due_ago - self.created_before_due,
                "run": run_at, "attempts": self.attempts, "leased": leased}

    @property
    def waited_for(self) -> bool:
        return self.state != "scheduled"


@dataclass(frozen=True)
class Jobs:
    jobs: tuple[Job, ...]

    def told(self) -> str:
        return "; ".join(job.told() for job in self.jobs) or "no jobs"

    def shrinks(self):
        n = len(self.jobs)
        for keep in (n // 2, 1):
            if 0 < keep < n:
                yield Jobs(self.jobs[:keep])
                yield Jobs(self.jobs[n - keep:])
        for i in range(n):
            if n > 1:
                yield Jobs(self.jobs[:i] + self.jobs[i + 1:])
        for i, job in enumerate(self.jobs):
            plain = replace(job, attempts=min(job.attempts, 1 if job.state in ("running", "dead worker", "retrying") else 0),
                            due_ago=float(round(job.due_ago)))
            if plain != job:
                yield Jobs(self.jobs[:i] + (plain,) + self.jobs[i + 1:])


def _job(rng: random.Random, queue_name: str, state: str | None = None) -> Job:
    state = state or rng.choice(STATES)
    due_ago = rng.choice([12.5, 75.0, 400.0, 3_600.0, 90_000.0, 200_000.5, round(rng.uniform(10, 5_000), 1)])
    if state == "scheduled":
        due_ago = -rng.choice([30.0, 3_600.0, 86_400.0])
    ahead = rng.choice([0.0, 0.0, 3_600.0, 86_400.0, -rng.choice([600.0, 7_200.0])])
    if ahead < 0 and -ahead >= due_ago:  # back-dated, but never created in the future
        ahead = -round(due_ago / 2, 1) if due_ago > 2 * TOLERANCE_S + 1 else 0.0
    attempts = 0 if state in ("ready", "due now", "scheduled") else rng.choice([1, 2, 7, 2_500])
    return Job(queue_name, state, due_ago, ahead, attempts)


def _waiting_mixed(rng: random.Random) -> Jobs:
    names = rng.sample(QUEUE_NAMES, rng.randint(1, 4))
    return Jobs(tuple(_job(rng, rng.choice(names)) for _ in range(rng.randint(1, 8))))


def _waiting_only_later(rng: random.Random) -> Jobs:
    names = rng.sample(QUEUE_NAMES, 2)
    return Jobs((_job(rng, names[0], "scheduled"), _job(rng, names[1], rng.choice(STATES[:5]))))


def _waiting_one_state(rng: random.Random) -> Jobs:
    state = STATES[rng.randrange(5)]
    name = rng.choice(QUEUE_NAMES)
    return Jobs(tuple(_job(rng, name, state) for _ in range(rng.randint(1, 3))))


def _waiting_this_instant(rng: random.Random) -> Jobs:
    """A queue whose only job was enqueued this very instant (due_at = run_at = now(): 0 s late, and waited
    for), beside another queue's jobs. Alone in its queue, so that 0 s is its oldest: beside older jobs a 0
    tells nothing apart."""
    names = rng.sample(QUEUE_NAMES, 2)
    now = Job(names[0], "due now", 0.0, 0.0, 0)
    others = tuple(_job(rng, names[1]) for _ in range(rng.randint(0, 3)))
    return Jobs((now, *others) if rng.random() < 0.5 else (*others, now))


WAITING_FAMILIES = (_waiting_mixed, _waiting_only_later, _waiting_one_state, _waiting_this_instant)


def _install(conn, scenario: Jobs) -> None:
    for n, job in enumerate(scenario.jobs, start=1):
        r = job.row()
        conn.execute(
            "INSERT INTO jobs (id, queue, type, payload, due_at, created_at, run_at, attempts, lease_token, claimed_by) "
            "VALUES (%(id)s, %(queue)s, 'send_receipt', '{}', now() + make_interval(secs => %(due)s), "
            "now() + make_interval(secs => %(created)s), now() + make_interval(secs => %(run)s), %(attempts)s, "
            "CASE WHEN %(leased)s THEN gen_random_uuid() END, CASE WHEN %(leased)s THEN 'worker-1' END)",
            {**r, "id": 900_000 + n})


def _judge_waiting(scenario: Jobs, done, expected: dict) -> diff.Finding | None:
    if done.error is not None:
        return diff.Finding(OW_SECONDS, got=f"your code raised {done.error}", expected=short(expected))
    got = done.value
    if not _numbers(got):
        return diff.Finding(OW_SECONDS, got=short(got), expected=short(expected) + " (a dict of numbers)")
    shown = {q: round(v, 1) for q, v in expected.items()}
    extra = [q for q in got if q not in expected]
    if extra:
        return diff.Finding(OW_NOT_YET, got=short(got), expected=short(shown),
                            note=f"nobody waits for {extra[0]}'s jobs yet: scheduled for later, never run. Leave the "
                                 "queue out of the dict")
    missing = [q for q in expected if q not in got]
    if missing:
        states = sorted({j.state for j in scenario.jobs if j.queue == missing[0] and j.waited_for})
        return diff.Finding(OW_WHO, got=short(got), expected=short(shown),
                            note=f"{missing[0]} has jobs someone waits for ({', '.join(states)}): due means "
                                 "run_at <= now(); running and retrying jobs have attempts > 0")
    for q, seconds in expected.items():
        if abs(got[q] - seconds) <= TOLERANCE_S:
            continue
        counted = [j for j in scenario.jobs if j.queue == q and j.waited_for]
        near = lambda value: abs(got[q] - value) <= TOLERANCE_S  # noqa: E731
        present = sorted({j.state for j in counted})
        if near(seconds % 86_400) or near(seconds % 60) or near(seconds / 60):  # days, minutes dropped; minutes
            return diff.Finding(OW_SECONDS, got=f"{q}: {got[q]:.1f}", expected=f"{q}: {seconds:.1f}",
                                note="seconds since the oldest such job became due: extract(epoch FROM now() - "
                                     "min(due_at)) is every second of it (not only the seconds field, nor the "
                                     "timedelta's .seconds, which drop the minutes or the days)")
        for size in range(1, len(present)):  # the oldest of some states only: the others were left out
            for kept in itertools.combinations(present, size):
                if near(max(j.due_ago for j in counted if j.state in kept)) and not near(seconds):
                    missed = ", ".join(state for state in present if state not in kept)
                    return diff.Finding(OW_WHO, got=f"{q}: {got[q]:.1f}", expected=f"{q}: {seconds:.1f}",
                                        note=f"a job {missed} is one someone waits for: due means run_at <= now(); "
                                             "running and retrying jobs have attempts > 0")
        ages = [(j.due_ago + j.created_before_due, -j.row()["run"], min(j.due_ago, j.due_ago + j.created_before_due))
                for j in counted]
        if any(abs(got[q] - max(age[k] for age in ages)) <= TOLERANCE_S for k in range(3)):
            return diff.Finding(OW_DUE_AT, got=f"{q}: {got[q]:.1f}", expected=f"{q}: {seconds:.1f}",
                                note="count from due_at, the moment the job was first due: run_at moves at every "
                                     "claim and retry, and created_at is not when it became due (a job can be "
                                     "enqueued ahead, or back-dated with a run_at in the past)")
        return diff.Finding(OW_SECONDS, got=f"{q}: {got[q]:.1f}", expected=f"{q}: {seconds:.1f}",
                            note="seconds since the oldest such job became due: extract(epoch FROM now() - "
                                 "min(due_at)) is every second of it (not only the seconds field, nor the "
                                 "timedelta's .seconds, which drop the minutes or the days)")
    return None


def waiting_differential(t: Trial, box, answer, seed) -> None:
    t.seed = WAITING_SEED if seed is None else seed
    verdicts = diff.Verdicts(t, WAITING_CHECKS)
    conn = box.conn

    def compare(scenario: Jobs) -> diff.Finding | None:
        finding = run(scenario)
        if finding is not None and finding.check != OW_DUE_AT and any(j.created_before_due for j in scenario.jobs):
            # the cause, by experiment: the same jobs, each created the moment it became due
            plain = Jobs(tuple(replace(j, created_before_due=0.0) for j in scenario.jobs))
            if run(plain) is None:
                return replace(finding, check=OW_DUE_AT, note="count from due_at, the moment the job was first due: "
                               "created_at is not when it became due (a job can be enqueued ahead, or back-dated "
                               "with a run_at in the past)")
        return finding

    def run(scenario: Jobs) -> diff.Finding | None:
        conn.execute("BEGIN")
        try:
            conn.execute("DELETE FROM jobs")
            _install(conn, scenario)
            done = t.attempt(answer, conn)
            if conn.info.transaction_status == psycopg.pq.TransactionStatus.INERROR:
                conn.execute("ROLLBACK")
                conn.execute("BEGIN")
                conn.execute("DELETE FROM jobs")
                _install(conn, scenario)
            expected = monitoring.oldest_waiting(conn)
        finally:
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.execute("ROLLBACK")
        return _judge_waiting(scenario, done, expected)

    diff.search(verdicts, diff.in_turn(WAITING_FAMILIES), compare, seed=t.seed, count=WAITING_SCENARIOS)
    if not any(verdicts.failed(check) for check in WAITING_CHECKS):  # wrong alone: not a race
        found = race(t, box, answer)
        if found is not None:
            verdicts.add(found[0], str(found[1]))
    verdicts.report()


# -- another session between the answer's statements ---------------------------------------------------------
# An answer written as several statements (the queues first, then each queue's oldest job; or the due jobs,
# then their ages) must still return what the reference's one statement returns before the other session
# acted or after it: a worker finishing a queue's last waited-for job, or its oldest, meanwhile.

RACES = (Jobs((Job("emails", "ready", 300.0, 0.0, 0), Job("receipts", "ready", 720.0, 0.0, 0),
               Job("receipts", "retrying", 100.0, 0.0, 2))),)
RACE_ACTS = (
    interleave.Act("a worker finished emails' only job (its row deleted)",
                   lambda conn: conn.execute("DELETE FROM jobs WHERE queue = 'emails'").rowcount),
    interleave.Act("a worker finished receipts' oldest job (its row deleted)",
                   lambda conn: conn.execute("DELETE FROM jobs WHERE id = (SELECT id FROM jobs WHERE queue = "
                                             "'receipts' ORDER BY due_at LIMIT 1)").rowcount),
)


def install_sql(scenario: Jobs) -> sql.Composable:
    """The SQL that writes the scenario's rows (the arena commits it from its own session)."""
    rows = []
    for n, job in enumerate(scenario.jobs, start=1):
        r = job.row()
        rows.append(sql.SQL(
            "INSERT INTO jobs (id, queue, type, payload, due_at, created_at, run_at, attempts, lease_token, claimed_by) "
            "VALUES ({id}, {queue}, 'send_receipt', '{{}}', now() + make_interval(secs => {due}), "
            "now() + make_interval(secs => {created}), now() + make_interval(secs => {run}), {attempts}, "
            "CASE WHEN {leased} THEN gen_random_uuid() END, CASE WHEN {leased} THEN 'worker-1' END)").format(
            **{k: sql.Literal(v) for k, v in {**r, "id": 900_000 + n}.items()}))
    return sql.SQL("; ").join(rows)


def race(t: Trial, box, answer) -> tuple[diff.Finding, interleave.Told] | None:
    """Each act before each of the answer's statements after its first (in autocommit, as a dashboard
    calls it); the answer must return what the reference returns with the act before it or after it."""
    reader = Reader.of(box.conn, only=("jobs",))
    arena = interleave.Arena(box.conn, box.connect, reader, install_sql, lambda value: value)

    def judge(scenario, ours: diff.Outcome, allowed: list[diff.Outcome]) -> diff.Finding | None:
        done = Attempt(value=ours.returned, error=ours.raised)
        findings = [_judge_waiting(scenario, done, theirs.returned) for theirs in allowed]
        return None if any(f is None for f in findings) else findings[0]

    try:
        for scenario in RACES:
            found = interleave.explore(arena, scenario, answer=lambda conn: t.attempt(answer, conn),
                                       reference=lambda conn: Attempt(value=monitoring.oldest_waiting(conn)),
                                       acts=[(act, act) for act in RACE_ACTS], holds=[], judge=judge)
            if found:
                return found
    finally:
        arena.close()
    return None
