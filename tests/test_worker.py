"""Real worker processes against a real PostgreSQL: draining, crashing, retrying, stopping.

Leases are short (about 1 s) and deadlines generous: these tests must pass on a loaded 2-core machine.
"""

import signal
import time

import pytest

from course import queue
from course.processes import wait_until

from .apps.recording import RUNS_TABLE
from .conftest import RECORDING_APP

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture
def runs(conn):
    conn.execute(RUNS_TABLE)
    return conn


def jobs_left(conn):
    return conn.execute("SELECT count(*) FROM jobs").fetchone()[0]


def test_eight_workers_drain_5000_jobs_none_lost_none_run_twice_at_once(runs, start_workers):
    ids = queue.enqueue_many(runs, "record", [{"n": n} for n in range(5000)])
    workers = start_workers(8, concurrency=4, lease=5)
    wait_until(lambda: jobs_left(runs) == 0, timeout=180, what="the queue to drain")
    for w in workers:
        assert w.terminate() == 0, w.log_tail()
    ran = {row[0] for row in runs.execute("SELECT DISTINCT job_id FROM runs")}
    assert ran == set(ids), f"{len(set(ids) - ran)} jobs lost"
    overlapping = runs.execute("""
        SELECT a.job_id FROM runs a JOIN runs b
          ON a.job_id = b.job_id AND a.ctid < b.ctid AND a.started < b.finished AND b.started < a.finished
    """).fetchall()
    assert overlapping == [], "a job ran in two workers at the same time"
    assert len({row[0] for row in runs.execute("SELECT DISTINCT pid FROM runs")}) > 1


def test_a_job_whose_worker_is_sigkilled_runs_again_after_its_lease(runs, start_workers):
    job_id = queue.enqueue(runs, "record", {"sleep_s": 3})
    [doomed] = start_workers(1, concurrency=1, lease=1)
    wait_until(lambda: runs.execute("SELECT attempts FROM jobs").fetchone()[0] == 1, 30, what="first claim")
    time.sleep(0.3)
    doomed.kill()
    assert runs.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    [rescuer] = start_workers(1, concurrency=1, lease=1)
    wait_until(lambda: jobs_left(runs) == 0, timeout=60, what="the job to finish on the second worker")
    (pid, attempts), = runs.execute("SELECT pid, (SELECT count(*) FROM runs) FROM runs WHERE job_id = %s",
                                    [job_id]).fetchall()
    assert pid == rescuer.pid and attempts == 1


def test_a_heartbeat_keeps_a_job_longer_than_its_lease_from_running_twice(runs, start_workers):
    queue.enqueue(runs, "record", {"sleep_s": 4})
    start_workers(2, concurrency=1, lease=1)
    wait_until(lambda: jobs_left(runs) == 0, timeout=60, what="the slow job to finish")
    assert runs.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert runs.execute("SELECT count(*) FROM dead_jobs").fetchone()[0] == 0


def test_sigterm_finishes_the_running_job_claims_nothing_new_and_exits_0(runs, start_workers):
    queue.enqueue(runs, "record", {"sleep_s": 2})
    [w] = start_workers(1, concurrency=1, lease=5)
    wait_until(lambda: runs.execute("SELECT count(*) FROM jobs WHERE lease IS NOT NULL").fetchone()[0], 30,
               what="the claim")
    w.signal(signal.SIGTERM)
    queue.enqueue(runs, "record", {"late": True})
    assert w.wait(30) == 0, w.log_tail()
    assert runs.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert runs.execute("SELECT payload FROM jobs").fetchall() == [({"late": True},)], \
        "the job enqueued after SIGTERM must be left for another worker"


def test_failing_jobs_retry_with_backoff_then_dead_letter_at_max_attempts(conn, start_workers):
    queue.enqueue(conn, "always_fails", {}, max_attempts=3)
    queue.enqueue(conn, "invalid_address", {})
    start_workers(1, concurrency=2, lease=5, poll_interval=0.2)
    wait_until(lambda: len(queue.dead_jobs(conn)) == 2, timeout=60, what="both jobs in the dead-letter table")
    dead = {d.type: d for d in queue.dead_jobs(conn)}
    assert (dead["always_fails"].reason, dead["always_fails"].attempts) == ("max_attempts", 3)
    assert (dead["invalid_address"].reason, dead["invalid_address"].attempts) == ("permanent", 1)
    assert "503" in dead["always_fails"].error and "Traceback" in dead["always_fails"].traceback


def test_unknown_types_and_bad_payloads_are_dead_lettered_at_once(conn, start_workers):
    queue.enqueue(conn, "no_such_type", {}, max_attempts=8)
    queue.enqueue(conn, "needs_order", {"order_id": "9812"})
    start_workers(1, concurrency=1, lease=5)
    wait_until(lambda: len(queue.dead_jobs(conn)) == 2, timeout=30, what="two dead jobs")
    dead = {d.type: d for d in queue.dead_jobs(conn)}
    assert dead["no_such_type"].reason == "unknown_type" and dead["no_such_type"].attempts == 1
    assert "no handler for job type 'no_such_type'" in dead["no_such_type"].error
    assert dead["needs_order"].reason == "bad_payload" and "not int" in dead["needs_order"].error


def test_notify_wakes_an_idle_worker_long_before_its_poll(runs, start_workers):
    start_workers(1, concurrency=1, lease=5, poll_interval=30)
    time.sleep(2)  # let it go idle, listening
    queue.enqueue(runs, "record", {})
    wait_until(lambda: jobs_left(runs) == 0, timeout=15, what="the notified worker to run the job")


def test_a_polling_worker_finds_jobs_without_notify(runs, start_workers):
    start_workers(1, concurrency=1, lease=5, poll_interval=0.2, listen=False)
    queue.enqueue(runs, "record", {}, notify=False)
    wait_until(lambda: jobs_left(runs) == 0, timeout=30, what="the polling worker to run the job")


def test_a_bad_app_argument_gets_one_clear_line(schema):
    from course import worker

    child = worker.spawn("tests/apps/recording.py:nothing_here", schema=schema)
    assert child.wait(30) == 2
    assert "has no 'nothing_here'" in child.log() and "Traceback" not in child.log()


def test_a_failing_statement_is_logged_once_and_the_worker_carries_on(runs, start_workers):
    [w] = start_workers(1, concurrency=1, lease=5, poll_interval=0.2, listen=False)
    wait_until(lambda: "queue 'default'" in w.log(), 30, what="the worker to start")
    runs.execute("ALTER TABLE jobs RENAME TO jobs_away")  # the claim now fails: no such table
    time.sleep(1.5)
    assert w.alive(), w.log_tail()
    runs.execute("ALTER TABLE jobs_away RENAME TO jobs")
    queue.enqueue(runs, "record", {}, notify=False)
    wait_until(lambda: jobs_left(runs) == 0, timeout=30, what="the worker to run the job once the table is back")
    assert w.log().count('relation "jobs" does not exist') == 1, w.log_tail()


def test_the_worker_settings_choose_the_retry_backoff(conn, schema):
    """retry_base_s/retry_cap_s (--retry-base/--retry-cap) reach fail(): every wait stays under the cap."""
    import threading

    from course import db
    from course.worker import Registry, Settings, Worker

    outcomes = []

    class RecordingQueue:  # course.queue, noting what each fail() decided
        def __getattr__(self, name):
            return getattr(queue, name)

        def fail(self, *args, **kwargs):
            outcomes.append(queue.fail(*args, **kwargs))
            return outcomes[-1]

    registry = Registry()

    @registry.handler("flaky")
    def flaky(job):
        raise ConnectionError("503 from the provider")

    queue.enqueue(conn, "flaky", {}, max_attempts=6)
    settings = Settings(concurrency=1, lease_s=5, poll_interval_s=0.05, listen=False,
                        retry_base_s=0.01, retry_cap_s=0.03)
    worker = Worker(db.conninfo(schema), registry, settings, ops=RecordingQueue())
    thread = threading.Thread(target=worker.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: len(queue.dead_jobs(conn)) == 1, timeout=60, what="the job to be dead-lettered")
    finally:
        worker.stop()
        thread.join(30)
    delays = [outcome.delay_s for outcome in outcomes if isinstance(outcome, queue.Retry)]
    assert len(delays) == 5 and all(0 <= d <= 0.03 for d in delays), delays
    # The defaults would have allowed 1, 2, 4 and 8 s: the cap above is what kept them this short.
    with pytest.raises(ValueError, match="base <= cap"):
        Settings(retry_base_s=10, retry_cap_s=1)


def test_a_bad_retry_backoff_argument_gets_one_clear_line(schema):
    from course import processes

    child = processes.python("worker", "course", "worker", "--app", RECORDING_APP, "--retry-base", "0")
    assert child.wait(30) == 2
    assert "--retry-base/--retry-cap" in child.log() and "Traceback" not in child.log()
