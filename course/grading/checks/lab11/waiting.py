"""11.oldest_waiting's differential part (issue 22): jobs tables drawn from every state the statement's table
names, compared with the reference statement (course.core.monitoring) in one transaction."""

from __future__ import annotations

import contextlib
import itertools
import random
import time
from dataclasses import dataclass, replace

import psycopg
from psycopg import sql

from course.core import monitoring, queue
from course.infra import processes

from course.grading import differential as diff
from course.grading import interleave
from course.grading.snapshot import Reader
from course.grading.trial import Attempt, Trial, short

TOLERANCE_S = 5.0  # an answer may read the clock (clock_timestamp()) instead of now(): ages are many seconds apart
QUEUE_NAMES = ("receipts", "emails", "invoices", "syncs", "newsletter", "reminders", "wakeups", "welcomes", "reviews")
TYPES = ("send_receipt", "send_invoice", "send_email", "sync_channel_manager", "send_reminder")
PRIORITIES = (0, 0, -10, 5, 10)  # the claim takes the highest first: lateness still counts the oldest
# The local time zone of the process that runs the answer, in minutes east of UTC (never UTC itself, where a
# naive clock read as local time is right by luck): what a learner's laptop has, drawn for every scenario.
ZONES_MIN = (60, -300, 330, -210, 840, -570, 120, -480)


def _numbers(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in value.items())


# -- the fixed queues, one per situation the statement names ----------------------------------------------


def _age(conn, job_id: int, seconds: float) -> None:
    """Pretend the job was enqueued, and due, `seconds` ago (the only way to test minutes of waiting in a second)."""
    conn.execute("UPDATE jobs SET created_at = now() - make_interval(secs => %(s)s), "
                 "due_at = now() - make_interval(secs => %(s)s) WHERE id = %(id)s", {"s": seconds, "id": job_id})


def _let_pass(conn, job_id: int, seconds: float) -> None:
    """Pretend `seconds` went by for the job: every moment stored for it moves back by as much."""
    conn.execute("UPDATE jobs SET created_at = created_at - make_interval(secs => %(s)s), "
                 "run_at = run_at - make_interval(secs => %(s)s), due_at = due_at - make_interval(secs => %(s)s) "
                 "WHERE id = %(id)s", {"s": seconds, "id": job_id})


def _waiting_cases(conn) -> list[tuple[str, str, float | None]]:
    """Build one queue per situation; return (queue, what it shows, expected seconds or None = absent)."""
    young = queue.enqueue(conn, "send_receipt", {"order_id": 2}, queue="receipts")
    old = queue.enqueue(conn, "send_receipt", {"order_id": 1}, queue="receipts")
    _age(conn, old, 720)
    _age(conn, young, 5)

    retrying = queue.enqueue(conn, "send_email", {"booking_id": 981}, queue="emails")
    [job] = queue.claim(conn, "emails", lease_s=30)
    queue.fail(conn, job, "HTTP 503 from the provider", backoff=lambda attempt: 60.0)  # back in 60 s
    _age(conn, retrying, 300)

    later = queue.enqueue(conn, "send_reminder", {"booking_id": 982}, queue="reminders", delay_s=3600)
    _age(conn, later, 600)

    running = queue.enqueue(conn, "render_invoice", {"booking_id": 983}, queue="invoices")
    queue.claim(conn, "invoices", lease_s=30)
    _age(conn, running, 200)

    planned = queue.enqueue(conn, "send_wakeup_call", {"booking_id": 985}, queue="wakeups", delay_s=3600)
    _let_pass(conn, planned, 3630)  # enqueued an hour and a half minute ago, for an hour later: due 30 s ago

    abandoned = queue.enqueue(conn, "sync_channel_manager", {"booking_id": 984}, queue="syncs")
    queue.claim(conn, "syncs", lease_s=0.01)  # its worker "dies": the lease runs out at once
    time.sleep(0.05)
    _age(conn, abandoned, 400)
    return [
        ("receipts", "two waiting jobs, enqueued 720 s and 5 s ago: the oldest counts", 720.0),
        ("emails", "a job waiting for its retry (failed once, back in 60 s), enqueued 300 s ago", 300.0),
        ("invoices", "a job running right now (lease held), enqueued 200 s ago", 200.0),
        ("syncs", "a job whose worker died (lease ran out), enqueued 400 s ago", 400.0),
        ("wakeups", "a wake-up call enqueued 3,630 s ago with delay_s=3600: due 30 s ago, so 30 s late", 30.0),
        ("reminders", "a reminder scheduled for an hour from now, never run yet: nobody waits for it", None),
    ]


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
OW_NAMES = "one entry per queue, under its own name, whatever job types and priorities it holds ('Receipts' and 'receipts' are two queues)"
OW_ZONE = "the same seconds whatever the local time zone of the process that runs it (not only in UTC)"
WAITING_CHECKS = (OW_SECONDS, OW_WHO, OW_NOT_YET, OW_DUE_AT, OW_NAMES, OW_ZONE)
STATES = ("ready", "due now", "running", "dead worker", "retrying", "scheduled")
FILLER_S = 30.0  # the young jobs of a deep table were due this long ago (their oldest is older: 75 s and more)
FEW = 3  # young jobs a deep table is shrunk to: wrong with a thousand and right with these, only the size differs
POSTPONED_S = 3_600.0  # a planned job whose due_at has passed is put off to this far ahead (run_at), never tried


@dataclass(frozen=True)
class Job:
    queue: str
    state: str
    due_ago: float  # seconds since due_at (negative: due in the future)
    created_before_due: float  # created_at = due_at - this (negative: back-dated, due before it was made)
    attempts: int
    type: str = "send_receipt"
    priority: int = 0

    def told(self) -> str:
        due = f"due {self.due_ago:g} s ago" if self.due_ago >= 0 else f"due in {-self.due_ago:g} s"
        if self.state == "scheduled" and self.due_ago >= 0:  # put off: its due_at passed, its run_at is ahead
            due = f"due_at {self.due_ago:g} s ago, run_at in {POSTPONED_S:g} s"
        made = (f"enqueued {self.created_before_due:g} s ahead" if self.created_before_due > 0 else
                f"back-dated: enqueued {-self.created_before_due:g} s after its due_at" if self.created_before_due < 0
                else "")
        kind = "" if (self.type, self.priority) == ("send_receipt", 0) else f" {self.type} (priority {self.priority})"
        return f"{self.queue}:{kind} {self.state}, {due}{', ' + made if made else ''}, attempts {self.attempts}"

    def row(self) -> dict:
        run_at = {"ready": -self.due_ago, "due now": 0.0, "running": 30.0, "dead worker": -5.0, "retrying": 60.0,
                  "scheduled": -self.due_ago if self.due_ago < 0 else POSTPONED_S}[self.state]
        leased = self.state in ("running", "dead worker")
        return {"queue": self.queue, "due": -self.due_ago, "created": -self.due_ago - self.created_before_due,
                "run": run_at, "attempts": self.attempts, "leased": leased, "type": self.type,
                "priority": self.priority}

    @property
    def waited_for(self) -> bool:
        return self.state != "scheduled"


@dataclass(frozen=True)
class Jobs:
    jobs: tuple[Job, ...]
    zone_min: int = 0  # the answer's process runs with its local clock this many minutes east of UTC
    filler: int = 0  # this many more ready jobs, due 1 s ago, enqueued after all of these, in filler_queue
    filler_queue: str = ""

    def told(self) -> str:
        jobs = "; ".join(job.told() for job in self.jobs) or "no jobs"
        if self.filler:
            jobs += (f"; and {self.filler:,} more ready jobs in {self.filler_queue}, due {FILLER_S:g} s ago, enqueued after all "
                     f"of these (a table of {self.filler + len(self.jobs):,} jobs)")
        return f"{jobs} (your code run with its local clock at {zone_told(self.zone_min)})" if self.zone_min else jobs

    @property
    def judged(self) -> tuple[Job, ...]:
        """The jobs, with the young ones a deep table adds standing as one."""
        return self.jobs + ((self.young(),) if self.filler else ())

    def young(self) -> Job:
        """One of the young jobs: ready, due FILLER_S ago, of the type and priority of its queue's first job."""
        like = next((j for j in self.jobs if j.queue == self.filler_queue), Job(self.filler_queue, "ready", 0, 0, 0))
        return Job(self.filler_queue, "ready", FILLER_S, 0.0, 0, like.type, like.priority)

    def shrinks(self):
        if self.filler > FEW:  # the same young jobs, a few: what is wrong on a small table is shown on one
            yield replace(self, filler=FEW)
        n = len(self.jobs)
        for keep in (n // 2, 1):
            if 0 < keep < n:
                yield replace(self, jobs=self.jobs[:keep])
                yield replace(self, jobs=self.jobs[n - keep:])
        for i in range(n):
            if n > 1:
                yield replace(self, jobs=self.jobs[:i] + self.jobs[i + 1:])
        for i, job in enumerate(self.jobs):
            plain = replace(job, attempts=min(job.attempts, 1 if job.state in ("running", "dead worker", "retrying") else 0),
                            due_ago=float(round(job.due_ago)))
            if plain != job:
                yield replace(self, jobs=self.jobs[:i] + (plain,) + self.jobs[i + 1:])


def zone_told(minutes: int) -> str:
    sign = "+" if minutes >= 0 else "-"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@contextlib.contextmanager
def local_zone(minutes: int):
    """The process that runs the answer keeps its local clock `minutes` east of UTC while inside: TZ (a POSIX
    rule, no zone database needed) and tzset, here; the answer host takes the checks' environment with each
    call and sets its clock from it too (boundary/host.py)."""
    hours, rest = divmod(abs(minutes), 60)
    name = f"<{'+' if minutes >= 0 else '-'}{hours:02d}{rest:02d}>"
    rule = f"{name}{'-' if minutes >= 0 else '+'}{hours}:{rest:02d}"  # POSIX counts west: the sign flips
    try:
        with processes.environment({"TZ": rule}):
            time.tzset()
            yield
    finally:
        time.tzset()


def _job(rng: random.Random, queue_name: str, state: str | None = None) -> Job:
    state = state or rng.choice(STATES)
    due_ago = rng.choice([12.5, 75.0, 400.0, 3_600.0, 90_000.0, 200_000.5, round(rng.uniform(10, 5_000), 1)])
    if state == "scheduled" and rng.random() < 0.5:  # planned ahead; else put off: due_at passed, run_at ahead
        due_ago = -rng.choice([30.0, 3_600.0, 86_400.0])
    ahead = rng.choice([0.0, 0.0, 3_600.0, 86_400.0, -rng.choice([600.0, 7_200.0])])
    if ahead < 0 and -ahead >= due_ago:  # back-dated, but never created in the future
        ahead = -round(due_ago / 2, 1) if due_ago > 2 * TOLERANCE_S + 1 else 0.0
    attempts = 0 if state in ("ready", "due now", "scheduled") else rng.choice([1, 2, 7, 2_500])
    return Job(queue_name, state, due_ago, ahead, attempts, rng.choice(TYPES), rng.choice(PRIORITIES))


def _zone(rng: random.Random) -> int:
    return rng.choice(ZONES_MIN)


def _names(rng: random.Random, k: int) -> list[str]:
    """k queue names; now and then two of them differ only by case (queue names are case-sensitive)."""
    names = rng.sample(QUEUE_NAMES, k)
    if k > 1 and rng.random() < 0.4:
        names[-1] = rng.choice([str.capitalize, str.upper])(names[0])
    return names


def _waiting_mixed(rng: random.Random) -> Jobs:
    names = _names(rng, rng.randint(1, 4))
    return Jobs(tuple(_job(rng, rng.choice(names)) for _ in range(rng.randint(1, 8))), _zone(rng))


def _waiting_only_later(rng: random.Random) -> Jobs:
    names = _names(rng, 2)
    return Jobs((_job(rng, names[0], "scheduled"), _job(rng, names[1], rng.choice(STATES[:5]))), _zone(rng))


def _waiting_one_state(rng: random.Random) -> Jobs:
    state = STATES[rng.randrange(5)]
    name = rng.choice(QUEUE_NAMES)
    return Jobs(tuple(_job(rng, name, state) for _ in range(rng.randint(1, 3))), _zone(rng))


def _waiting_crowded(rng: random.Random) -> Jobs:
    """One or two busy queues (two, named alike but for case, half the time): several job types and priorities
    each, ready and retrying and running jobs beside planned ones put off (due_at passed, run_at ahead), in
    an order where the oldest is neither the first row, nor the most urgent, nor of the first type."""
    names = _names(rng, rng.randint(1, 2))
    jobs = []
    for name in names:
        for _ in range(rng.randint(2, 5)):
            jobs.append(_job(rng, name, rng.choice(STATES[:5] + ("scheduled", "scheduled"))))
    rng.shuffle(jobs)
    return Jobs(tuple(jobs), _zone(rng))


def _waiting_this_instant(rng: random.Random) -> Jobs:
    """A queue whose only job was enqueued this very instant (due_at = run_at = now(): 0 s late, and waited
    for), beside another queue's jobs. Alone in its queue, so that 0 s is its oldest: beside older jobs a 0
    tells nothing apart."""
    names = rng.sample(QUEUE_NAMES, 2)
    now = Job(names[0], "due now", 0.0, 0.0, 0)
    others = tuple(_job(rng, names[1]) for _ in range(rng.randint(0, 3)))
    return Jobs((now, *others) if rng.random() < 0.5 else (*others, now), _zone(rng))


def _waiting_deep(rng: random.Random) -> Jobs:
    """A table of a thousand jobs and more: a few waited for since long ago, then many young ready ones in the
    same queue, newer by id and by created_at (an answer that reads only the newest few hundred never sees the
    oldest). Written with one INSERT ... SELECT."""
    names = _names(rng, rng.randint(1, 2))
    jobs = tuple(_job(rng, rng.choice(names), rng.choice(STATES[:5])) for _ in range(rng.randint(1, 4)))
    oldest = replace(jobs[0], due_ago=rng.choice([75.0, 400.0, 3_600.0, 90_000.0, 200_000.5]))  # beyond the young
    return Jobs((oldest, *jobs[1:]), _zone(rng), filler=rng.randint(1_000, 1_500), filler_queue=oldest.queue)


WAITING_FAMILIES = (_waiting_mixed, _waiting_crowded, _waiting_only_later, _waiting_crowded, _waiting_one_state,
                    _waiting_this_instant, _waiting_deep)


def _install(conn, scenario: Jobs) -> None:
    for n, job in enumerate(scenario.jobs, start=1):
        r = job.row()
        conn.execute(
            "INSERT INTO jobs (id, queue, type, priority, payload, due_at, created_at, run_at, attempts, lease_token, "
            "claimed_by) VALUES (%(id)s, %(queue)s, %(type)s, %(priority)s, '{}', now() + make_interval(secs => %(due)s), "
            "now() + make_interval(secs => %(created)s), now() + make_interval(secs => %(run)s), %(attempts)s, "
            "CASE WHEN %(leased)s THEN gen_random_uuid() END, CASE WHEN %(leased)s THEN 'worker-1' END)",
            {**r, "id": 900_000 + n})
    if scenario.filler:
        young = scenario.young()
        conn.execute("INSERT INTO jobs (id, queue, type, priority, payload, due_at, created_at, run_at, attempts) "
                     "SELECT 950_000 + n, %(queue)s, %(type)s, %(priority)s, '{}', now() - make_interval(secs => %(s)s), "
                     "now() - make_interval(secs => %(s)s), now() - make_interval(secs => %(s)s), 0 "
                     "FROM generate_series(1, %(n)s) AS n", {"queue": young.queue, "type": young.type,
                                                              "priority": young.priority, "s": young.due_ago,
                                                              "n": scenario.filler})


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
        states = sorted({j.state for j in scenario.judged if j.queue == missing[0] and j.waited_for})
        return diff.Finding(OW_WHO, got=short(got), expected=short(shown),
                            note=f"{missing[0]} has jobs someone waits for ({', '.join(states)}): due means "
                                 "run_at <= now(); running and retrying jobs have attempts > 0")
    for q, seconds in expected.items():
        if abs(got[q] - seconds) <= TOLERANCE_S:
            continue
        counted = [j for j in scenario.judged if j.queue == q and j.waited_for]
        near = lambda value: abs(got[q] - value) <= TOLERANCE_S  # noqa: E731
        present = sorted({j.state for j in counted})
        in_minutes = abs(got[q] - seconds / 60) <= TOLERANCE_S / 60  # the same drift, a sixtieth of it
        if near(seconds % 86_400) or near(seconds % 60) or in_minutes:  # days, minutes dropped; minutes
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


def _experiments(scenario: Jobs, finding: diff.Finding):
    """(check, the scenario with one dimension made plain, the cause it names), in the order they are tried."""
    jobs = scenario.jobs
    if scenario.zone_min:
        yield (OW_ZONE, replace(scenario, zone_min=0),
               f"with the local clock at {zone_told(scenario.zone_min)} yours is off; with it at UTC yours is right: "
               "the seconds must not depend on the zone of the machine (a laptop is rarely on UTC). "
               "datetime.utcnow() is a naive UTC time that .timestamp() reads as local time; take now() from the "
               "database (extract(epoch FROM now() - min(due_at))), or aware datetimes on both sides")
    names = {j.queue for j in jobs}
    if any(name != name.lower() for name in names):
        spare = iter(name for name in QUEUE_NAMES if name not in names)
        renamed = {name: next(spare) for name in sorted(names) if name != name.lower()}
        yield (OW_NAMES, replace(scenario, jobs=tuple(replace(j, queue=renamed.get(j.queue, j.queue)) for j in jobs),
                                 filler_queue=renamed.get(scenario.filler_queue, scenario.filler_queue)),
               "queue names are case-sensitive: " + ", ".join(f"'{name}' and '{name.lower()}'" for name in renamed) +
               " would be two queues; each queue has its own entry, under its name exactly as stored (no lower(), "
               "no merging)")
    if len({j.type for j in jobs}) > 1:
        yield (OW_NAMES, replace(scenario, jobs=tuple(replace(j, type="send_receipt") for j in jobs)),
               "a queue holds jobs of several types: its entry is the age of its oldest waited-for job of any type "
               "(one row per queue: GROUP BY queue, not queue and type, whose rows overwrite each other in the dict)")
    if len({j.priority for j in jobs}) > 1:
        yield (OW_SECONDS, replace(scenario, jobs=tuple(replace(j, priority=0) for j in jobs)),
               "the oldest waited-for job counts, whatever its priority: not the job the claim takes next "
               "(highest priority first); a low-priority job that has waited longest is the lateness")
    put_off = [j for j in jobs if j.state == "scheduled" and j.due_ago >= 0]
    if put_off:
        yield (OW_NOT_YET, replace(scenario, jobs=tuple(j for j in jobs if j not in put_off)),
               "a job scheduled for later (run_at ahead, never tried) is not waited for, even beside waiting jobs "
               "in its queue and even when its due_at has passed: leave it out of the minimum, not only out of the "
               "choice of queues (WHERE before GROUP BY, not HAVING)")
    if finding.check != OW_DUE_AT and any(j.created_before_due for j in jobs):
        yield (OW_DUE_AT, replace(scenario, jobs=tuple(replace(j, created_before_due=0.0) for j in jobs)),
               "count from due_at, the moment the job was first due: created_at is not when it became due (a job "
               "can be enqueued ahead, or back-dated with a run_at in the past)")
    if scenario.filler:
        yield (OW_WHO, replace(scenario, filler=min(scenario.filler, FEW)),
               f"with {FEW} young jobs instead of {scenario.filler:,} yours is right: every job of the table counts, however "
               "many there are, not only the newest few hundred (no LIMIT before the minimum: min(due_at) over all "
               "waited-for jobs, which an index on due_at makes cheap)")


def waiting_differential(t: Trial, box, answer, seed) -> None:
    t.seed = WAITING_SEED if seed is None else seed
    verdicts = diff.Verdicts(t, WAITING_CHECKS)
    conn = box.conn

    def compare(scenario: Jobs) -> diff.Finding | None:
        finding = run(scenario)
        if finding is None:
            return None
        # the cause, by experiment: the same jobs with one thing made plain; the first change that makes the
        # answer right is what it gets wrong
        for check, plainer, note in _experiments(scenario, finding):
            if plainer != scenario and run(plainer) is None:
                return replace(finding, check=check, note=note)
        return finding

    def run(scenario: Jobs) -> diff.Finding | None:
        conn.execute("BEGIN")
        try:
            conn.execute("DELETE FROM jobs")
            _install(conn, scenario)
            done = attempt(scenario)
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

    def attempt(scenario: Jobs):
        with local_zone(scenario.zone_min):
            return t.attempt(answer, conn)

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
RACE_HOLD = interleave.InTransaction(
    "another session holds receipts' oldest job's row locked while your code reads (a worker claiming it right now: "
    "SELECT ... FOR UPDATE)",
    lambda conn: conn.execute("SELECT id FROM jobs WHERE queue = 'receipts' ORDER BY due_at LIMIT 1 FOR UPDATE")
    .fetchall())
HELD_NOTE = ("a job whose row another session has locked (a claim in progress, a job running) is still one someone "
             "waits for: read the jobs as they are, without FOR UPDATE or SKIP LOCKED (a dashboard's read takes no "
             "row locks, and skips none)")
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
            "INSERT INTO jobs (id, queue, type, priority, payload, due_at, created_at, run_at, attempts, lease_token, "
            "claimed_by) VALUES ({id}, {queue}, {type}, {priority}, '{{}}', now() + make_interval(secs => {due}), "
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
                                       acts=[(act, act) for act in RACE_ACTS], holds=[(RACE_HOLD, RACE_HOLD)],
                                       judge=judge)
            if found:
                finding, told = found
                return (replace(finding, note=HELD_NOTE) if told.between is False else finding), told
    finally:
        arena.close()
    return None
