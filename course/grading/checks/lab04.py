"""Lab 04: visibility timeouts and leases. The learner's heartbeat is tried step by step, then inside real
worker processes running a job longer than its lease while one of them is SIGKILLed; the learner's ack
is tried against a zombie: a worker whose lease ran out and whose job another worker claimed."""

from __future__ import annotations

import time

from course.core import queue
from course.infra.processes import wait_until

from course.grading.faults import Faults, Run, Scenario, run
from course.grading.trial import Trial
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

# The fault run: a job that works 2.5 times as long as its lease. Only a heartbeat keeps it to one run.
LEASE_S = 1.0
WORK_S = 2.5
DEFAULT_SEED = 4  # the fault schedule `check("04.heartbeat")` replays unless given another seed
TIME_LIMIT_S = 20.0  # a passing run takes about 6 s; the rest is room for a loaded machine


def slow_job(job, conn):
    """The work of the fault run (it runs in the worker processes): slow, then one effect row."""
    time.sleep(WORK_S)
    conn.execute("INSERT INTO effects (job_id) VALUES (%s)", [job.id])


def _lease_left(conn, job_id: int) -> float | None:
    """Seconds until the job's lease ends (run_at), or None if the job is gone."""
    row = conn.execute("SELECT extract(epoch FROM run_at - now())::float8 FROM jobs WHERE id = %s",
                       [job_id]).fetchone()
    return None if row is None else row[0]


def _about(seconds: float | None, target: float) -> bool:
    return seconds is not None and target - 1.0 <= seconds <= target + 1.0


def _shown(seconds: float | None) -> str:
    return "the job is gone" if seconds is None else f"the lease ends {seconds:.1f} s from now"


def _claimed(conn, lease_s: float) -> queue.Job:
    job = queue.claim_one(conn, lease_s=lease_s)
    assert job is not None, "the check enqueued a job and could not claim it"
    return job


def _taken_over(conn, job: queue.Job, lease_s: float = 30.0) -> queue.Job:
    """Wait for `job`'s lease to run out, then claim it as a second worker would: a new lease token."""
    wait_until(lambda: (_lease_left(conn, job.id) or 0) <= 0, timeout=10, what="the short lease to run out")
    again = _claimed(conn, lease_s)
    assert again.id == job.id
    return again


# -- 04.heartbeat ------------------------------------------------------------------------------------


@exercise_check("04.heartbeat")
def heartbeat_check(t: Trial, extend_lease, seed=None):
    box = t.scratch()
    conn = box.conn
    queue.enqueue_many(conn, "sync_channel_manager", [{"booking_id": 981}, {"booking_id": 982}])
    job, other = _claimed(conn, 2), _claimed(conn, 2)
    other_before = _lease_left(conn, other.id)

    ours = t.call(extend_lease, conn, job, 30, during="extend_lease(conn, job, 30) on a job we hold")
    left = _lease_left(conn, job.id)
    t.require("moves the end of the lease to lease_s seconds from now", ok=_about(left, 30), got=_shown(left),
              expected="the lease ends 30 s from now", example="a job claimed with a 2 s lease; extend_lease(conn, job, 30)")
    t.expect("returns something true while the lease is ours", ok=bool(ours), got=ours, expected=True)

    t.call(extend_lease, conn, job, 5, during="extend_lease(conn, job, 5)")
    left = _lease_left(conn, job.id)
    t.expect("counts lease_s from now, not from the end of the current lease", ok=_about(left, 5), got=_shown(left),
             expected="the lease ends 5 s from now", example="extend_lease(conn, job, 30), then extend_lease(conn, job, 5)",
             note="each beat must set the end to now + lease_s; adding to the current end makes a dead worker's "
                  "job stay hidden longer with every beat it made" if left is not None and left > 6 else None)
    other_after = _lease_left(conn, other.id)
    t.expect("leaves every other job alone", ok=other_after is not None and abs(other_after - other_before) < 0.5,
             got=_shown(other_after), expected=f"the other job's lease unchanged ({other_before:.1f} s)",
             example="two jobs claimed; extend_lease on one of them")

    # The zombie: our lease ran out and another worker claimed the job. Our heartbeat must not steal it back.
    queue.ack(conn, other)
    conn.execute("UPDATE jobs SET run_at = now() + interval '0.3 seconds' WHERE id = %s", [job.id])
    rescuer = _taken_over(conn, job, lease_s=20)
    ours = t.call(extend_lease, conn, job, 30, during="extend_lease(conn, job, 30) after another worker took the job")
    left = _lease_left(conn, job.id)
    zombie = "our lease ran out, another worker claimed the job (20 s lease, a new token); then our extend_lease(conn, job, 30)"
    t.expect("does not extend a lease that is no longer ours (the lease token changed)", ok=_about(left, 20),
             got=_shown(left), expected="the lease ends 20 s from now (the new owner's)", example=zombie,
             note="fence the UPDATE with the lease token: WHERE id = ... AND lease = ..." if not _about(left, 20) else None)
    t.expect("returns something false when the lease is no longer ours", ok=not ours, got=ours, expected=False,
             example=zombie, note="the worker logs a lost lease from this answer: another worker may be running the job")
    queue.ack(conn, rescuer)
    ours = t.call(extend_lease, conn, job, 30, during="extend_lease(conn, job, 30) on a job already done")
    t.expect("returns something false for a job that is gone", ok=not ours, got=ours, expected=False,
             example="the job was acked (deleted), then extend_lease(conn, job, 30)")

    if all(result.passed for result in t.results):  # real workers only for an answer that passed the steps
        slow_job_under_a_short_lease(t, box, extend_lease, DEFAULT_SEED if seed is None else seed)


def slow_job_under_a_short_lease(t: Trial, box, extend_lease, seed: int, timeout_s: float = TIME_LIMIT_S) -> Run:
    """Real workers run jobs 2.5 times as long as their lease, with `extend_lease` as their heartbeat; the
    first job each worker starts gets it SIGKILLed. Every job must run to the end exactly once."""
    box.conn.execute("DELETE FROM jobs")
    box.conn.execute("CREATE TABLE IF NOT EXISTS effects (job_id bigint NOT NULL)")
    scenario = Scenario(slow_job, [{"booking_id": 981}, {"booking_id": 982}], workers=3, concurrency=1,
                        lease_s=LEASE_S, extend_lease=extend_lease, timeout_s=timeout_s,
                        faults=Faults(kill_mid_work=1.0, max_kills=1))
    result = run(box, scenario, seed=seed)
    t.seed = seed
    counts = dict(box.conn.execute("SELECT job_id, count(*) FROM effects GROUP BY job_id").fetchall())
    what = (f"{len(result.job_ids)} jobs of {WORK_S:g} s under a {LEASE_S:g} s lease, 3 workers with your "
            f"extend_lease as their heartbeat, {result.kills} SIGKILLed mid-job")
    shown = expect_no_parallel_runs(t, result, what)
    expect_each_effect_once(t, result, counts, what, timeline_shown=shown)
    done_in_time = not result.timed_out
    t.expect(f"in real workers: every job is done within {timeout_s:g} s, the killed workers' ones included",
             ok=done_in_time, got="still running at the time limit" if not done_in_time else "done",
             expected="done", example=what,
             note="a job whose worker was SIGKILLed must come back when its lease runs out, and a job whose "
                  "worker lives must be acked before another worker claims it" if not done_in_time else None)
    return result


def runs_of(result: Run, job_id: int) -> list[tuple[float, float, int]]:
    """(start, end, pid) of every run of a job: from `started` to its `finished`, `failed` or `killed`."""
    open_runs: dict[int, float] = {}
    runs = []
    for event in result.of(job_id):
        if event.kind == "started":
            open_runs[event.pid] = event.t
        elif event.kind in ("finished", "failed", "killed") and event.pid in open_runs:
            runs.append((open_runs.pop(event.pid), event.t, event.pid))
    runs.extend((start, float("inf"), pid) for pid, start in open_runs.items())
    return sorted(runs)


def expect_no_parallel_runs(t: Trial, result: Run, what: str) -> int | None:
    """Returns the job whose timeline the failure showed, if any."""
    name = "in real workers: no job runs in two workers at the same time"
    for job_id in result.job_ids:
        runs = runs_of(result, job_id)
        for (start_a, end_a, pid_a), (start_b, _, pid_b) in zip(runs, runs[1:]):
            if start_b < end_a:
                t.expect(name, ok=False,
                         got=f"job {job_id}: a run in pid {pid_b} started at {start_b:.2f} s while the run in "
                             f"pid {pid_a} (from {start_a:.2f} s) was still at work",
                         expected="one run at a time", example=what,
                         note="the lease ran out while the job was still running, so another worker claimed it: "
                              "is the heartbeat moving the lease forward?\n" + result.timeline(job_id))
                return job_id
    t.expect(name, ok=True)
    return None


def expect_each_effect_once(t: Trial, result: Run, counts: dict[int, int], what: str,
                            timeline_shown: int | None) -> None:
    wrong = [j for j in result.job_ids if counts.get(j, 0) != 1 and j not in result.dead]
    first = wrong[0] if wrong else None
    note = None
    if first is not None and first != timeline_shown:
        note = result.timeline(first)
    elif first is not None:
        note = "(its timeline is above)"
    t.expect("in real workers: each job's work is done exactly once", ok=not wrong,
             got=f"job {first}'s work was done {counts.get(first, 0)} times" if wrong else "once each",
             expected="once each", example=what, note=note)


# -- 04.fenced_ack -----------------------------------------------------------------------------------


@exercise_check("04.fenced_ack")
def fenced_ack_check(t: Trial, ack):
    box = t.scratch()
    conn = box.conn
    job_id, other_id = queue.enqueue_many(conn, "send_receipt", [{"order_id": 9812}, {"order_id": 9813}])
    job = _claimed(conn, 30)
    done = t.call(ack, conn, job.id, job.lease_token,
                  during="ack(conn, job.id, job.lease_token) while the lease is ours")
    left = conn.execute("SELECT array_agg(id ORDER BY id) FROM jobs").fetchone()[0] or []
    t.require("deletes the job while the lease is ours", ok=job_id not in left, got=f"jobs left: {left}",
              expected=f"jobs left: [{other_id}]", example="one job claimed, then acked with its own lease")
    t.expect("deletes only that job", got=f"jobs left: {left}", expected=f"jobs left: [{other_id}]",
             example="two jobs, one claimed and acked")
    t.expect("returns something true when it deleted the job", ok=bool(done), got=done, expected=True)

    # The zombie: A's lease ran out while it worked; B claimed the job. A's late ack must delete nothing.
    zombie = _claimed(conn, 0.3)
    rescuer = _taken_over(conn, zombie, lease_s=30)
    story = (f"worker A claimed job {zombie.id} for 0.3 s; the lease ran out; worker B claimed it (a new token, "
             "30 s); then A's late ack(conn, job.id, A's lease)")
    done = t.call(ack, conn, zombie.id, zombie.lease_token, during="the zombie's ack(conn, job.id, its old lease)")
    still_there = conn.execute("SELECT count(*) FROM jobs WHERE id = %s", [zombie.id]).fetchone()[0] == 1
    t.expect("a worker that lost its lease deletes nothing (the zombie's ack)", ok=still_there,
             got="the job was deleted" if not still_there else "the job is still there",
             expected="the job is still there, for worker B", example=story,
             note="B's run is now the only record that the job still has to succeed: if B fails, its retry "
                  "is gone. Compare lease tokens, not times: B's lease ends in the future too." if not still_there
             else None)
    t.expect("returns something false when it deleted nothing", ok=not done, got=done, expected=False, example=story)
    if still_there:
        done = t.call(ack, conn, rescuer.id, rescuer.lease_token, during="worker B's ack(conn, job.id, B's lease)")
        gone = conn.execute("SELECT count(*) FROM jobs WHERE id = %s", [rescuer.id]).fetchone()[0] == 0
        t.expect("the worker that holds the lease now can ack it", ok=gone and bool(done),
                 got=f"deleted: {gone}, returned {done!r}", expected="deleted: True, returned something true",
                 example=story + "; then B's ack")

    # Handed back for a retry: no one holds a lease now. A late ack must leave it for its retry.
    conn.execute("DELETE FROM jobs")
    queue.enqueue(conn, "send_receipt", {"order_id": 9814})
    late = _claimed(conn, 0.3)
    retried = _taken_over(conn, late, lease_s=30)
    queue.retry(conn, retried, 60, "HTTP 503 from the email provider")
    story = (f"worker A's lease on job {late.id} ran out; worker B claimed it, failed and handed it back for a "
             "retry in 60 s; then A's late ack")
    done = t.call(ack, conn, late.id, late.lease_token,
                  during="a late ack(conn, job.id, old lease) of a job waiting to retry")
    still_there = conn.execute("SELECT count(*) FROM jobs WHERE id = %s", [late.id]).fetchone()[0] == 1
    t.expect("a job handed back for a retry is not deleted by an old lease's ack", ok=still_there and not done,
             got=f"still there: {still_there}, returned {done!r}", expected="still there: True, returned something false",
             example=story)


# -- 04.quiz ------------------------------------------------------------------------------------------


@exercise_check("04.quiz")
def quiz(t: Trial, q1, q2, q3, q4, q5):
    ask(t, "q1", q1, "b", "the worker that deleted its job on read, then died", "what was left in the jobs table "
        "after the SIGKILL?")
    ask(t, "q2", q2, "c", "a worker killed after the email went out, before its ack", "the job was never acked: "
        "what does the lease do then?")
    ask(t, "q3", q3, "b", "a 45-second job under a 30-second visibility timeout, no heartbeat", "look again at "
        "the two bars of the channel-manager sync")
    ask(t, "q4", q4, "a", "what the ack must compare", "after another worker claims the job, whose lease ends "
        "in the future?")
    ask(t, "q5", q5, "c", "how often to beat", "what if one beat is late, or the database is slow for a moment?")
