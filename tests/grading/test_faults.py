"""The fault injector itself: it must catch a handler that is not idempotent, pass one that is, and
notice lost jobs, poison jobs and leases that are not extended."""

import pytest

from course.core import queue
from course.grading import faults
from course.grading.report import Report
from course.grading.scratch import ScratchSchema
from course.grading.trial import Trial

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture
def box():
    sandbox = ScratchSchema.create("zz.faults")
    sandbox.conn.execute("CREATE TABLE effects (n int NOT NULL)")
    yield sandbox
    sandbox.drop()


def naive(job, conn):
    conn.execute("INSERT INTO effects VALUES (%s)", [job.payload["n"]])


def idempotent(job, conn):
    with conn.transaction():
        conn.execute("CREATE TABLE IF NOT EXISTS done (n int PRIMARY KEY)")
        if conn.execute("INSERT INTO done VALUES (%s) ON CONFLICT DO NOTHING", [job.payload["n"]]).rowcount:
            conn.execute("INSERT INTO effects VALUES (%s)", [job.payload["n"]])


def poison_or_work(job, conn):
    if job.payload["n"] % 5 == 0:
        raise RuntimeError("this one never works")
    idempotent(job, conn)


def slow(job, conn):
    import time

    time.sleep(2.5)
    conn.execute("INSERT INTO effects VALUES (%s)", [job.payload["n"]])


def judge(box, result) -> Report:
    counts = dict(box.conn.execute("SELECT n, count(*) FROM effects GROUP BY n").fetchall())
    effects = {job_id: counts.get(n, 0) for n, job_id in enumerate(result.job_ids)}
    t = Trial("zz.faults", seed=result.seed)
    faults.expect_finished(t, result)
    faults.expect_no_job_lost(t, result, {j for j, c in effects.items() if c} | set(result.dead))
    faults.expect_no_duplicate_effect(t, result, effects)
    return Report("zz.faults", tuple(t.results), seed=result.seed)


KILLS = faults.Faults(kill_after_work=0.3, max_kills=6)


def test_kills_after_the_work_expose_a_handler_that_is_not_idempotent(box):
    result = faults.run(box, faults.Scenario(naive, [{"n": n} for n in range(30)], workers=3, faults=KILLS), seed=7)
    report = judge(box, result)
    assert result.kills > 0 and not report.passed
    text = report.render()
    # The doubled job was killed after its work, or went down with a worker killed after another job's
    # (while running, or finished and waiting for its batched ack).
    assert "no duplicate effect" in text and "SIGKILL injected" in text
    assert "check('zz.faults', seed=7)" in text


def test_an_idempotent_handler_survives_the_same_faults(box):
    result = faults.run(box, faults.Scenario(idempotent, [{"n": n} for n in range(30)], workers=3, faults=KILLS),
                        seed=7)
    report = judge(box, result)
    assert result.kills > 0 and report.passed, report.render()
    assert any(n > 1 for n in result.executions().values()), "the faults should have caused re-runs"


def test_poison_jobs_reach_the_dead_letter_table_at_max_attempts_despite_kills(box):
    result = faults.run(box, faults.Scenario(poison_or_work, [{"n": n} for n in range(20)], workers=2,
                                             max_attempts=3, faults=faults.Faults(kill_mid_work=0.2, max_kills=4)),
                        seed=3)
    t = Trial("zz.faults")
    poison = {job_id for n, job_id in enumerate(result.job_ids) if n % 5 == 0}
    faults.expect_poison_dead_lettered(t, result, poison, max_attempts=3)
    assert all(r.passed for r in t.results), Report("zz", tuple(t.results)).render()
    # The same invariant must fail when the budget does not match.
    t = Trial("zz.faults")
    faults.expect_poison_dead_lettered(t, result, poison, max_attempts=4)
    assert not t.results[0].passed


def test_a_lease_extension_that_does_nothing_lets_a_slow_job_run_twice(box):
    def no_heartbeat(conn, job, lease_s):
        return True  # claims success, extends nothing

    # Without a heartbeat the job never completes: each run outlives its lease and loses its ack, and the
    # claim after its third run buries it (three attempts end well inside the limit, but on a very slow machine).
    result = faults.run(box, faults.Scenario(slow, [{"n": 0}], workers=2, concurrency=1, lease_s=0.6, max_attempts=3,
                                             extend_lease=no_heartbeat, timeout_s=8), seed=1)
    # What it ends as depends on the machine's speed: still running at the limit (the drain after it may
    # then ack the last run, which nobody took over), or (on a busy one, whose attempts come faster than
    # the limit) dead-lettered at its last attempt, for that reason and no other: its last lease ran out
    # with nobody reporting back.
    job_id = result.job_ids[0]
    assert result.executions()[job_id] >= 2
    if job_id in result.dead:
        dead = result.dead[job_id]
        assert (dead.reason, dead.error) == ("max_attempts", queue.LAST_ATTEMPT_LOST), result.timeline(job_id)
    else:
        assert result.timed_out, result.timeline(job_id)


def test_the_learners_lease_extension_runs_inside_the_worker(box):
    def heartbeat(conn, job, lease_s):
        return queue.extend_lease(conn, job, lease_s) is not None

    result = faults.run(box, faults.Scenario(slow, [{"n": 0}], workers=2, concurrency=1, lease_s=0.6,
                                             extend_lease=heartbeat), seed=1)
    assert result.executions()[result.job_ids[0]] == 1
    assert box.conn.execute("SELECT count(*) FROM effects").fetchone()[0] == 1


def sleeps_a_second_and_a_half(job, conn):
    import time

    time.sleep(1.5)
    idempotent(job, conn)


def never_returns(job, conn):
    import time

    while True:  # the reference worker's heartbeat keeps its lease: the job never comes back, never ends
        time.sleep(1)


def test_a_run_on_a_loaded_machine_is_not_cut_short_by_its_time_limit(box, monkeypatch):
    # timeout_s bounds a hang, never a race: on a machine patient enough (as a loaded one is: see
    # processes.patience) a job that needs three times the limit still ends and is judged. With the limit
    # read as fixed seconds this run stops at 0.5 s, its job still at work.
    from course.infra import processes

    monkeypatch.setattr(processes, "patience", lambda: 1000.0)
    result = faults.run(box, faults.Scenario(sleeps_a_second_and_a_half, [{"n": 0}], workers=1, concurrency=1,
                                             timeout_s=0.5), seed=1)
    assert not result.timed_out and result.left_in_queue == 0, result.timeline(result.job_ids[0])
    assert box.conn.execute("SELECT count(*) FROM effects").fetchone()[0] == 1


def test_a_job_that_never_ends_is_reported_at_the_time_limit(box):
    # What the limit guards: stretched or not, a run whose job never ends stops and says so.
    result = faults.run(box, faults.Scenario(never_returns, [{"n": 0}], workers=1, concurrency=1, timeout_s=2),
                        seed=1)
    assert result.timed_out and result.left_in_queue == 1, result.timeline(result.job_ids[0])


def idempotent_but_slow(job, conn):
    import time

    time.sleep(0.1)  # long enough a run for several connection drops to land in it
    idempotent(job, conn)


def cut_once_then_idempotent(job, conn):
    """Job 0's first run keeps using its connection until the fault injector cuts it (the injector cuts
    connections over a second old, every 0.3 s), so the run cannot end before a drop has cut something,
    however fast or slow the machine; that run fails, and its retry works like every other job."""
    if job.payload["n"] == 0 and job.attempts == 1:
        while True:
            conn.execute("SELECT pg_sleep(0.05)")
    idempotent_but_slow(job, conn)


def test_dropped_connections_are_survived_and_recorded(box):
    scenario = faults.Scenario(cut_once_then_idempotent, [{"n": n} for n in range(40)], workers=2, timeout_s=45,
                               faults=faults.Faults(drop_connections_every_s=0.3, max_kills=3))
    result = faults.run(box, scenario, seed=5)
    report = judge(box, result)
    assert report.passed, report.render()
    cut = [e.detail for e in result.events if e.kind == "dropped" and not e.detail.startswith("0 ")]
    assert cut, [e.detail for e in result.events if e.kind == "dropped"]
    first = result.job_ids[0]
    assert result.starts()[first] >= 2 and [e.kind for e in result.of(first)].count("failed") >= 1, \
        result.timeline(first)


def test_a_kill_is_written_into_the_timeline_of_every_job_the_worker_held_also_finished_but_not_acked(
        tmp_path, monkeypatch):
    """Acks are batched: a job whose work is done can still be lost with its worker, and its timeline
    must say so, or a learner sees a job run twice with no reason given."""
    import random
    from types import SimpleNamespace

    from course.grading.faults import worker as faultworker

    class Killed(Exception):
        pass

    def fake_kill(pid, signum):
        raise Killed

    monkeypatch.setattr(faultworker.os, "kill", fake_kill)
    history = tmp_path / "history.jsonl"
    never = SimpleNamespace(kill_mid_work=0.0, kill_after_work=0.0)
    recorder = faultworker.Recorder(str(history), 0.0, 0, never, random.Random(1), None)
    done, acked, running, doomed = (SimpleNamespace(id=n, attempts=1) for n in (1, 2, 3, 4))
    for job in (done, acked, running, doomed):
        recorder.started(job)
    recorder.finished(done, None)
    recorder.finished(acked, None)
    recorder.acked({acked.id})
    with pytest.raises(Killed):
        recorder._die(doomed, faultworker.AFTER_WORK)
    killed = {e.job: e.detail for e in faults.read_history(history) if e.kind == "killed"}
    assert killed == {
        doomed.id: "SIGKILL injected after the work, before the ack",
        running.id: "went down with its worker (SIGKILL injected for job 4)",
        done.id: "its ack went down with its worker (SIGKILL injected for job 4)",
    }


def speaks_as_another(job, conn):
    """A handler that writes into its run's history, as worker 7 with pid 1, that its job was acked."""
    import sys

    from course.infra import eventlog, processes

    spec = processes.unpickle(sys.argv[1])  # python -m course.grading.faults.worker SPEC SLOT INCARNATION
    eventlog.record(spec["history"], t=0.0, worker=7, pid=1, kind="acked", job=job.id, detail="forged")
    naive(job, conn)


def test_only_the_workers_it_started_write_the_history_and_each_only_as_itself(box, tmp_path, monkeypatch):
    """In class grading the handler runs in the workers and the notebook's own process runs beside them;
    both may write the exchange folder. Nothing there may add a line to the history or calm the run's
    kills, and a worker's lines carry the slot and pid the supervisor started, whatever they say."""
    import json
    import threading

    exchange = tmp_path / "exchange"
    monkeypatch.setenv("COURSE_EXCHANGE_DIR", str(exchange))
    stop = threading.Event()

    def forge() -> None:  # the notebook's process: all it can reach is the exchange folder
        forged = json.dumps({"t": 0.0, "pid": 1, "kind": "acked", "worker": 0, "job": 1, "detail": "forged"})
        while not stop.wait(0.01):
            for path in exchange.rglob("*"):
                try:
                    if path.is_file() and path.suffix == ".jsonl":
                        with open(path, "a") as out:
                            out.write(forged + "\n")
                    elif path.is_dir():
                        (path / "calm").touch()
                except OSError:
                    pass

    forger = threading.Thread(target=forge, daemon=True)
    forger.start()
    try:
        result = faults.run(box, faults.Scenario(speaks_as_another, [{"n": n} for n in range(6)],
                                                 faults=faults.Faults(kill_after_work=1.0, max_kills=2)), seed=23)
    finally:
        stop.set()
        forger.join()
    assert not result.timed_out
    started = {(e.worker, e.pid) for e in result.events if e.kind == "ready"}
    said = [e for e in result.events if e.detail == "forged"]
    assert said, "the handler's own lines reach the history"
    assert {(e.worker, e.pid) for e in said} <= started, said  # as the worker that wrote them, never as another
    assert all(e.pid != 1 for e in result.events), [e for e in result.events if e.pid == 1]
    assert result.kills >= 2  # a kill after every job until the budget is spent: nothing calmed the run early
