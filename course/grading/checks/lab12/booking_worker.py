"""12.booking_worker: StayHub's worker step, combined from the pieces of labs 03, 04 and 07 — claim with a
lease, run the handler with no transaction open, a fenced ack, or a retry after the backoff (no sooner than
the provider's Retry-After) or the dead-letter table.

Judged against the reference (`reference` in booking_stories.py, with the stories and the provider) over seeded stories of confirmation-email jobs, each with
a plan of what the email provider answers at each attempt (sent; 503; 429 with Retry-After; a timeout; a
bug of ours; 422 invalid address; a lease that runs out while the handler runs and another worker claims
the job). For each story:

    rounds        the answer's work_one is called until it says no job is ready, time passing between
                  calls (a retry's wait elapses); after each call the rows and the provider's log must be the
                  reference's after the same call (a retry's wait: within its bounds, not the same draw)
    meanwhile k   another worker (the reference, on its own session) takes one step at each statement
                  boundary k of the first call: no job may be worked by both
    a crash at k  for every statement boundary k of one call (faults/boundaries.py: the server ends the
                  session there, as a SIGKILL would) of every call of the two told stories and of the first
                  call of the seeded ones, then the lease runs out and the reference drains the queue: every
                  job must end sent or dead-lettered — nothing lost

A failing story is told again on the one job that shows the failure alone, when one does.

The handler is the check's: it loads the booking on the worker's connection (one statement) and records
each call in the provider's own log (on the check's session, with the state of the worker's session at
that moment), then answers as the story says. Observed: the jobs and dead_jobs rows and that log — never
what the answer returns alone. Free: a heartbeat (StayHub's lease is 60 s, a send 300 ms), how the wait is
drawn within its bounds, the bookkeeping columns claimed_by and claimed_at.
"""

from __future__ import annotations

import contextlib
import threading

import psycopg

from course.core import queue
from course.core.queue import PermanentError
from course.infra.processes import wait_until

from course.grading import differential as diff
from course.grading.trial import Trial, short
from course.grading.faults import killpoint
from course.grading.faults.boundaries import Crashed, Watched, crash_on
from course.grading.checks import exercise_check
from course.grading.checks.lab12.stays import stayhub_box
from course.grading.checks.lab12.booking_stories import (
    CLAIMED_COLUMNS, CLAIMED_ROW, GONE, OUTLIVED, OUTLIVED_503, REJECTED, RETRY_AFTER, SENT, STORIES, Plan, Provider, Story, bounds, install, read,
    reference, seeded, stories, time_passes, waits)

DEFAULT_SEED = 1213
MAX_ROUNDS = 60  # an answer still finding jobs after this many calls is taken to loop
MAX_BOUNDARIES = 40  # one call of work_one that sends more statements than this is taken to loop
SLACK_S = 2.0  # a loaded machine between the answer's retry and the check's reading of run_at
LEASE_SLACK_S = 20.0  # the claim to the handler's first statement, on a machine at load 40: far less than 90 - 60

# The checks, in the order the report shows them; a story's first broken rule is charged to one.
RETURNS = "returns the id of the job it worked, None when no job is ready"
IDLE = "no transaction is open while the handler runs: the claim is committed first"
ACKED = "a job whose handler returned is acked: gone from the jobs table, sent once"
PERMANENT = "a permanent error (PermanentError, the provider's 422) goes to the dead-letter table at once, never retried"
POISON = "a job failing at its last attempt ends in the dead-letter table, reason 'max_attempts', with its last error"
RETRIED = ("a transient failure is handed back with its error, to run again after backoff_delay(attempts) s, "
           "no sooner than its Retry-After")
FENCED = "a worker whose lease ran out while its handler ran leaves the job to the worker that claimed it"
ONE_AT_A_TIME = "another worker between any two of its statements: no job is worked by two workers while its lease runs"
NOTHING_LOST = "killed at any statement boundary, nothing is lost: once the lease runs out every job ends sent or dead-lettered"
CHECKS = (RETURNS, IDLE, ACKED, PERMANENT, POISON, RETRIED, FENCED, ONE_AT_A_TIME, NOTHING_LOST)

# -- the check ------------------------------------------------------------------------------------------------


@exercise_check("12.booking_worker")
def booking_worker(t: Trial, work_one, seed=None):
    box = stayhub_box(t)
    # The tables every call writes, unlogged: a commit then waits for no disk flush (the stories commit
    # hundreds of times), and nothing the answer can observe changes.
    box.conn.execute("ALTER TABLE jobs SET UNLOGGED; ALTER TABLE dead_jobs SET UNLOGGED")
    t.seed = DEFAULT_SEED if seed is None else seed
    findings: dict[str, tuple[str, str, str]] = {}
    tried = {"stories": 0, "calls": 0, "meanwhiles": 0, "crashes": 0, "waits": [], "shown": set()}
    for n, story in enumerate(stories(t.seed)):
        tried["stories"] += 1
        calls = _all_stages(t, box, story, work_one, findings, tried, every_call=n < 2)
        if findings:
            _smallest(t, box, story, work_one, findings)
            break
    t.tell(f"tried {tried['stories']} stor(ies): {tried['calls']} call(s) of work_one, {tried['meanwhiles']} "
           f"other worker(s) between its statements, {tried['crashes']} crash point(s) (seed {t.seed})")
    _not_immediately(tried["waits"], findings)
    diff.report_in_order(t, CHECKS, findings, unshown={check: why for check, why in UNSHOWN.items()
                                                       if check not in tried["shown"]})


# What a step that never claimed a job or never called its handler cannot have got wrong, and so has not passed.
UNSHOWN = {
    RETURNS: "not judged: your work_one never returned the id of a job it worked",
    IDLE: "not judged: your work_one never called its handler",
}


IMMEDIATE_MEAN = 0.05  # of the ceiling; full jitter's mean is 0.5, and measured waits are never shorter than drawn
IMMEDIATE_SAMPLES = 5  # five uniform draws average under 0.05 with probability 0.25^5 / 5! < 1e-5


def _not_immediately(waits: list[tuple[float, str]], findings: dict) -> None:
    """The material's red flag, retries at once: each wait stays within its bounds (0 is one), so it is
    judged over the story's retries together — their mean, as a fraction of each ceiling."""
    if len(waits) < IMMEDIATE_SAMPLES or RETRIED in findings:
        return
    mean = sum(ratio for ratio, _ in waits) / len(waits)
    if mean < IMMEDIATE_MEAN:
        findings[RETRIED] = (f"{len(waits)} retries waited {mean:.1%} of their ceilings on average",
                             waits[0][1], "the red flag 'retries immediately': draw the wait over the whole range, "
                             "queue.backoff_delay(job.attempts) — about half the ceiling on average")


def _all_stages(t: Trial, box, story: Story, work_one, findings, tried, *, every_call: bool) -> int:
    """The rounds; another worker at each boundary of the first call; the crashes (in every call of a told
    story, in the first of a seeded one). Returns the number of calls the reference made."""
    calls = _rounds(t, box, story, work_one, findings, tried)
    if not findings:
        _meanwhile(t, box, story, work_one, findings, tried)
    if not findings:
        _stolen(t, box, story, work_one, findings, tried)
    if NOTHING_LOST not in findings:
        _crashes(t, box, story, work_one, findings, tried, calls=calls if every_call else 1)
    return calls


def _smallest(t: Trial, box, story: Story, work_one, findings) -> None:
    """Tell a failure on one job alone when one job alone shows it (the first such, in the story's order)."""
    left = set(findings) if len(story.jobs) > 1 else set()
    for plan in story.jobs:
        if not left:
            return
        alone: dict = {}
        _all_stages(t, box, Story((plan,), lease_s=story.lease_s), work_one, alone, {"calls": 0, "meanwhiles": 0, "crashes": 0,
                                                              "waits": []}, every_call=True)
        for check in left & set(alone):
            findings[check] = alone[check]
            left.discard(check)


NOTES = {
    RETURNS: "claim one job (queue.claim_one), work it, and return its id; return None when the claim finds none",
    IDLE: "claim on the autocommit connection (the claim commits at once), then call the handler outside any "
          "transaction: a transaction open across the provider's call holds the job's row lock for nothing, and "
          "a crash or a failure rolls the claim back (the attempt is never counted)",
    ACKED: "after the handler returns, queue.ack(conn, job): the fenced DELETE of lab 04",
    PERMANENT: "check isinstance(error, PermanentError) first: queue.bury(conn, job, 'permanent', error)",
    POISON: "when job.attempts >= job.max_attempts (this run counted), queue.bury(conn, job, 'max_attempts', error): "
            "the error stored is the one of this last run",
    RETRIED: "queue.retry(conn, job, delay_s, error) with delay_s = backoff_delay(job.attempts), or the error's "
             "retry_after_s when it is larger (07.route)",
    FENCED: "ack and report only through the lease token (queue.ack, queue.retry, queue.bury are fenced): a DELETE "
            "or UPDATE by id alone undoes the other worker's claim",
    ONE_AT_A_TIME: "claim in one statement that skips the rows other workers hold (queue.claim_one: UPDATE ... WHERE "
                   "id = (SELECT ... FOR UPDATE SKIP LOCKED) RETURNING): a SELECT, then an UPDATE of the id it found, "
                   "takes a job another worker claimed in between",
    NOTHING_LOST: "ack only after the handler has returned: a job acked (or deleted) before its email was sent is "
                  "lost when the worker dies in between",
}


def _rule_for(plan: Plan, attempt: int) -> str:
    answer = plan.answer(attempt)
    if answer == SENT:
        return ACKED
    if answer in (OUTLIVED, OUTLIVED_503):
        return FENCED
    if answer in (REJECTED, GONE):
        return PERMANENT
    return POISON if attempt >= plan.max_attempts else RETRIED


def _run(box, story: Story, step) -> tuple[list, list]:
    """Call step(conn, handler) until it returns None (or MAX_ROUNDS): each call's Attempt, state, and waits."""
    ids, plans = install(box, story)
    provider = Provider(box, plans)
    rounds = []
    with box.connect() as conn:  # a worker keeps its connection from job to job
        return ids, _calls(box, provider, conn, step, rounds)


def _calls(box, provider: Provider, conn, step, rounds: list) -> list:
    for _ in range(MAX_ROUNDS):
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.rollback()  # a call that left its transaction open: the next starts clean, as a new worker would
        done = step(conn, provider.handler())
        state, wait = read(box), waits(box)
        provider.finish_others()
        rounds.append((done, state, wait))
        time_passes(box)
        value = getattr(done, "value", done)
        if value is None and getattr(done, "error", None) is None:
            break
    return rounds


def _rounds(t: Trial, box, story: Story, work_one, findings, tried) -> int:
    """The story's calls, compared with the reference's one by one; returns how many the reference made."""
    ids, theirs = _run(box, story, lambda conn, handler: reference(conn, handler, lease_s=story.lease_s))
    plans = dict(zip(ids, story.jobs))
    _, ours = _run(box, story, lambda conn, handler: t.attempt(work_one, conn, handler, lease_s=story.lease_s))
    tried["calls"] += len(ours)
    told = story.told(ids[0])
    for n, ((done, state, wait), (their_value, their_state, _)) in enumerate(zip(ours, theirs), start=1):
        example = f"{told}; call {n} of work_one(conn, handler)"
        claimed = their_value
        plan = plans.get(claimed)
        attempt = max((a for job_id, a, _ in their_state["log"] if job_id == claimed), default=None)
        rule = _rule_for(plan, attempt) if plan and attempt else RETURNS
        if done.error is not None:
            findings.setdefault(rule if plan else RETURNS, (f"raised {done.error}", example,
                                "every failure of the handler is routed (retried or dead-lettered), never raised: "
                                + NOTES[rule]))
            return len(theirs)
        busy = box.conn.execute("SELECT count(*) FROM provider_log WHERE caller_state <> 'idle'").fetchone()[0]
        if busy:  # the first cause: a lease that cannot run out while its row is locked, a claim rolled back
            findings.setdefault(IDLE, ("the provider saw your session 'idle in transaction' while it was called",
                                       example, NOTES[IDLE]))
            return len(theirs)
        lease = box.conn.execute("SELECT job_id, lease_left_s FROM provider_log WHERE NOT lease_left_s BETWEEN %s AND %s "
                                 "ORDER BY n LIMIT 1", [story.lease_s - LEASE_SLACK_S, story.lease_s + 1.0]).fetchone()
        if lease is not None:
            findings.setdefault(RETURNS, (f"job {lease[0]}'s lease had {lease[1]:.1f} s left while its handler ran",
                                          example + f"; expected a lease of {story.lease_s:g} s",
                                          "claim with the lease you are given: queue.claim_one(conn, lease_s=lease_s)"))
            return len(theirs)
        if not _same(state, their_state):
            findings.setdefault(rule, (_difference(state, their_state), example, NOTES[rule]))
            return len(theirs)
        if claimed in wait:
            low, high = bounds(plan, attempt)
            until, drawn = wait[claimed]
            if not low - SLACK_S <= until <= high + SLACK_S:
                findings.setdefault(RETRIED, (f"job {claimed} runs again in {until:.1f} s",
                                              example + f"; expected between {low:g} and {high:g} s", NOTES[RETRIED]))
                return len(theirs)
            if plan.answer(attempt) != RETRY_AFTER:
                tried["waits"].append((drawn / high, example))
        if done.value != claimed:
            findings.setdefault(RETURNS, (f"returned {short(done.value)}", example + f"; expected {short(claimed)}",
                                          NOTES[RETURNS]))
            return len(theirs)
        shown = tried.setdefault("shown", set())  # (the smallest example's search keeps none)
        if claimed is not None:
            shown.add(RETURNS)
        if box.conn.execute("SELECT count(*) FROM provider_log").fetchone()[0]:
            shown.add(IDLE)  # called, and never with a transaction open (busy above)
    if len(ours) != len(theirs):
        findings.setdefault(RETURNS, (f"{len(ours)} call(s) before it returned None", f"{told}",
                                      f"the reference needed {len(theirs)}: " + NOTES[RETURNS]))
    return len(theirs)


def _same(ours: dict, theirs: dict) -> bool:
    """The same rows and log; an error stored may say its message with or without its type's name."""
    if ours["log"] != theirs["log"] or set(ours["jobs"]) != set(theirs["jobs"]):
        return False
    for job_id, ref in theirs["jobs"].items():
        mine = ours["jobs"][job_id]
        if set(mine) != set(ref):
            return False
        for key, value in ref.items():
            if key in ("last error", "error") and value is not None and mine[key] is not None:
                if value.split(": ", 1)[-1] not in mine[key]:
                    return False
            elif mine[key] != value:
                return False
    return True


def _difference(ours: dict, theirs: dict) -> str:
    for job_id in sorted(set(ours["jobs"]) | set(theirs["jobs"])):
        mine, ref = ours["jobs"].get(job_id), theirs["jobs"].get(job_id)
        if mine != ref:
            return f"job {job_id}: yours {_described(mine)}; the reference's {_described(ref)}"
    return f"the provider's log: yours {ours['log']}; the reference's {theirs['log']}"


def _described(job: dict | None) -> str:
    if job is None:
        return "gone (acked)"
    return ", ".join(f"{key} {value!r}" for key, value in job.items())


def _meanwhile(t: Trial, box, story: Story, work_one, findings, tried) -> None:
    """Another worker (the reference, on a session of its own) takes one step at each statement boundary of
    the story's first call; it is let go on once it has finished or waits for a lock. No lease runs out
    here, so a job the provider's log shows twice was worked by two workers at once."""
    ids, plans = install(box, story)
    with _watched(box) as conn:
        t.attempt(work_one, conn, Provider(box, plans).handler(), lease_s=story.lease_s)
        statements = conn.seen
    for point in range(1, min(statements, MAX_BOUNDARIES) + 1):
        tried["meanwhiles"] += 1
        ids, plans = install(box, story)
        provider = Provider(box, plans)
        runs: list = []
        with _watched(box) as conn:
            conn.at(point, lambda: runs.append(_other_worker(box, provider)))
            t.attempt(work_one, conn, provider.handler(), lease_s=story.lease_s)
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
        for run in runs:
            run["thread"].join(killpoint.HANG_S)  # bounds a hang only
        provider.finish_others()
        log = read(box)["log"]
        twice = sorted({job_id for job_id, _, _ in log if sum(1 for other, _, _ in log if other == job_id) > 1})
        if twice:
            findings.setdefault(ONE_AT_A_TIME, (
                f"job(s) {twice} sent by both workers: the provider's log {[(j, a) for j, a, _ in log]} (job, attempt)",
                f"{story.told(ids[0])}; another worker takes one job just before statement {point} of call 1 of "
                "work_one", NOTES[ONE_AT_A_TIME]))
            return


def _stolen(t: Trial, box, story: Story, work_one, findings, tried) -> None:
    """At each statement boundary of the story's first call, the lease of the job it holds runs out and
    another worker claims it (unless the answer's open transaction still locks the row). Whatever the answer
    does after that point, the other worker's claim must stand: the job still carries its lease token."""
    ids, plans = install(box, story)
    with _watched(box) as conn:
        t.attempt(work_one, conn, Provider(box, plans).handler(), lease_s=story.lease_s)
        statements = conn.seen
    for point in range(2, min(statements, MAX_BOUNDARIES) + 1):
        tried["meanwhiles"] += 1
        ids, plans = install(box, story)
        provider = Provider(box, plans)

        def steal() -> None:
            for (job_id,) in box.conn.execute("SELECT id FROM jobs WHERE lease_token IS NOT NULL AND run_at > now()"):
                provider._claim_meanwhile(job_id)

        with _watched(box) as conn:
            conn.at(point, steal)
            t.attempt(work_one, conn, provider.handler(), lease_s=story.lease_s)
            if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                conn.rollback()
        for job_id, token in provider.other.items():
            row = box.conn.execute(CLAIMED_ROW, [job_id]).fetchone()
            claimed = provider.as_claimed.get(job_id)
            if row is not None and row[0] == token and claimed is not None and row != claimed:
                changed = [f"run_at moved {(after - before).total_seconds():+.3f} s" if name == "run_at" else
                           f"{name} {before!r} became {after!r}" for name, before, after
                           in zip(CLAIMED_COLUMNS, claimed, row) if before != after]
                findings.setdefault(FENCED, (
                    f"job {job_id}, claimed by the other worker: {'; '.join(changed)}",
                    f"{story.told(ids[0])}; just before statement {point} of call 1 of work_one, the lease runs out "
                    "and another worker claims the job", NOTES[FENCED] + "; a write by id alone (an UPDATE ... WHERE "
                    "id = %s, even of run_at only) moves the other worker's job: put the lease token in its WHERE"))
                return
            if row is None or row[0] != token:
                findings.setdefault(FENCED, (
                    f"job {job_id}: the other worker's claim undone (the job is "
                    f"{'gone' if row is None else 'changed under it'})",
                    f"{story.told(ids[0])}; just before statement {point} of call 1 of work_one, the lease runs out "
                    "and another worker claims the job", NOTES[FENCED] + "; a token read first and a write by id "
                    "after it leaves a moment between the two"))
                return
        provider.finish_others()


def _other_worker(box, provider: Provider) -> dict:
    """One step of the reference worker on its own session, in a thread; returns once it has finished or
    waits for a lock (pg_blocking_pids says which: on cue, not by a timer)."""
    run: dict = {}
    started = threading.Event()

    def work():
        with box.connect() as other:
            run["pid"] = other.info.backend_pid
            started.set()
            run["worked"] = reference(other, provider.handler())

    run["thread"] = threading.Thread(target=work, daemon=True, name="check-12-other-worker")
    run["thread"].start()
    started.wait(killpoint.HANG_S)
    with box.connect() as watcher:
        def done_or_waiting() -> bool:
            return not run["thread"].is_alive() or bool(watcher.execute(
                "SELECT cardinality(pg_blocking_pids(%s)) > 0", [run.get("pid")]).fetchone()[0])
        with contextlib.suppress(TimeoutError):
            wait_until(done_or_waiting, killpoint.HANG_S, interval=0.01, what="the other worker to finish or wait")
    return run


def _crashes(t: Trial, box, story: Story, work_one, findings, tried, *, calls: int) -> None:
    """Each of the story's first `calls` calls, crashed at each of its statement boundaries (the calls before
    it run whole); then the lease runs out and the reference drains the queue: every job must end sent or
    dead-lettered."""
    for call in range(1, calls + 1):
        point = 0
        while point < MAX_BOUNDARIES:
            point += 1
            ids, plans = install(box, story)
            provider = Provider(box, plans)
            with box.connect() as conn:
                for _ in range(call - 1):
                    t.attempt(work_one, conn, provider.handler(), lease_s=story.lease_s)
                    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                        conn.rollback()
                    provider.finish_others()
                    time_passes(box)
            with _watched(box) as conn:
                conn.at(point, crash_on(conn, box.conn))
                with contextlib.suppress(Crashed):
                    t.attempt(work_one, conn, provider.handler(), lease_s=story.lease_s)
                if not conn.crashed:
                    break  # this call sends fewer statements: every one of its boundaries was tried
            tried["crashes"] += 1
            provider.finish_others()
            with box.connect() as other:
                for _ in range(MAX_ROUNDS):
                    time_passes(box)
                    worked = reference(other, provider.handler())
                    provider.finish_others()
                    if worked is None:
                        break
            state = read(box)
            sent = {job_id for job_id, _, answer in state["log"] if answer in (SENT, OUTLIVED, OUTLIVED_503)}
            lost = [job_id for job_id in ids if job_id not in state["jobs"] and job_id not in sent]
            if lost:
                findings.setdefault(NOTHING_LOST, (
                    f"job(s) {lost} gone from the jobs table, never sent and not in the dead-letter table",
                    f"{story.told(ids[0])}; the worker dies before statement {point} of call {call} of work_one, "
                    f"then the lease runs out and other workers drain the queue", NOTES[NOTHING_LOST]))
                return


@contextlib.contextmanager
def _watched(box):
    conn = Watched.connect(box.conninfo, autocommit=True)
    try:
        yield conn
    finally:
        with contextlib.suppress(Exception):
            conn.close()
