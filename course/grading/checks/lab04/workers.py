"""Lab 04's heartbeat in real worker processes: jobs 2.5 times as long as their lease, the learner's
extend_lease as the workers' heartbeat, each worker's first job SIGKILLed mid-run. Run only for an answer
that passed every statement-level check (course/grading/checks/lab04/__init__.py)."""

from __future__ import annotations

from course.grading.checks.lab04 import LEASE_S, TIME_LIMIT_S, WORK_S
from course.grading.faults import Faults, Run, Scenario, run
from course.grading.faults.workloads import slow_job
from course.grading.trial import Trial


# -- 04.heartbeat in real workers ----------------------------------------------------------------------------


def slow_job_under_a_short_lease(t: Trial, box, extend_lease, seed: int, timeout_s: float = TIME_LIMIT_S) -> Run:
    """Real workers run jobs 2.5 times as long as their lease, with `extend_lease` as their heartbeat; the
    first job each worker starts gets it SIGKILLed. Every job must run to the end exactly once."""
    box.conn.execute("DELETE FROM jobs")
    box.conn.execute("CREATE TABLE IF NOT EXISTS effects (job_id bigint NOT NULL)")
    box.conn.execute("CREATE TABLE IF NOT EXISTS overtaken (job_id bigint NOT NULL)")  # slow_job notes a run taken
    box.conn.execute("DELETE FROM effects; DELETE FROM overtaken")
    scenario = Scenario(slow_job, [{"booking_id": 981}, {"booking_id": 982}], workers=3, concurrency=1,
                        lease_s=LEASE_S, extend_lease=extend_lease, timeout_s=timeout_s,
                        faults=Faults(kill_mid_work=1.0, max_kills=1))
    result = run(box, scenario, seed=seed)
    t.seed = seed
    counts = dict(box.conn.execute("SELECT job_id, count(*) FROM effects GROUP BY job_id").fetchall())
    what = (f"{len(result.job_ids)} jobs of {WORK_S:g} s under a {LEASE_S:g} s lease, 3 workers with your "
            f"extend_lease as their heartbeat, {result.kills} SIGKILLed mid-job")
    overtaken = [row[0] for row in box.conn.execute("SELECT DISTINCT job_id FROM overtaken ORDER BY 1")]
    shown = expect_no_parallel_runs(t, result, what, overtaken)
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


def expect_no_parallel_runs(t: Trial, result: Run, what: str, overtaken: list[int] = ()) -> int | None:
    """Returns the job whose timeline the failure showed, if any. `overtaken`: jobs another worker claimed while
    a run was still at work, as the run itself saw (slow_job), whatever the history's timestamps say."""
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
    for job_id in overtaken:
        t.expect(name, ok=False, got=f"job {job_id} was claimed by another worker while its run was still at work",
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
