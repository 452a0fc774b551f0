"""Real worker processes against a real PostgreSQL: draining, crashing, retrying, stopping.

Leases are short (about 1 s) and deadlines generous: these tests must pass on a loaded 2-core machine.
"""

import signal
import time

import pytest

from course.core import queue
from course.infra.processes import wait_until

from tests.apps.recording import RUNS_TABLE
from tests.conftest import RECORDING_APP

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


@pytest.fixture
def runs(conn):
    conn.execute(RUNS_TABLE)
    return conn


def jobs_left(conn):
    return conn.execute("SELECT count(*) FROM jobs").fetchone()[0]


def test_eight_workers_drain_5000_jobs_none_lost_none_run_twice_at_once(runs, start_workers):
    ids = queue.enqueue_many(runs, "record", [{"n": n} for n in range(5000)])
    workers = start_workers(8, concurrency=4, lease_s=5)
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
    [doomed] = start_workers(1, concurrency=1, lease_s=1)
    wait_until(lambda: runs.execute("SELECT attempts FROM jobs").fetchone()[0] == 1, 30, what="first claim")
    time.sleep(0.3)
    doomed.kill()
    assert runs.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    [rescuer] = start_workers(1, concurrency=1, lease_s=1)
    wait_until(lambda: jobs_left(runs) == 0, timeout=60, what="the job to finish on the second worker")
    (pid, attempts), = runs.execute("SELECT pid, (SELECT count(*) FROM runs) FROM runs WHERE job_id = %s",
                                    [job_id]).fetchall()
    assert pid == rescuer.pid and attempts == 1


def test_a_heartbeat_keeps_a_job_longer_than_its_lease_from_running_twice(runs, start_workers):
    queue.enqueue(runs, "record", {"sleep_s": 4})
    start_workers(2, concurrency=1, lease_s=1)
    wait_until(lambda: jobs_left(runs) == 0, timeout=60, what="the slow job to finish")
    assert runs.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert runs.execute("SELECT count(*) FROM dead_jobs").fetchone()[0] == 0


def test_sigterm_finishes_the_running_job_claims_nothing_new_and_exits_0(runs, start_workers):
    queue.enqueue(runs, "record", {"sleep_s": 2})
    [w] = start_workers(1, concurrency=1, lease_s=5)
    wait_until(lambda: runs.execute("SELECT count(*) FROM jobs WHERE lease_token IS NOT NULL").fetchone()[0], 30,
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
    start_workers(1, concurrency=2, lease_s=5, poll_interval_s=0.2)
    wait_until(lambda: len(queue.dead_jobs(conn)) == 2, timeout=60, what="both jobs in the dead-letter table")
    dead = {d.type: d for d in queue.dead_jobs(conn)}
    assert (dead["always_fails"].reason, dead["always_fails"].attempts) == ("max_attempts", 3)
    assert (dead["invalid_address"].reason, dead["invalid_address"].attempts) == ("permanent", 1)
    assert "503" in dead["always_fails"].error and "Traceback" in dead["always_fails"].traceback


def test_unknown_types_and_bad_payloads_are_dead_lettered_at_once(conn, start_workers):
    queue.enqueue(conn, "no_such_type", {}, max_attempts=8)
    queue.enqueue(conn, "needs_order", {"order_id": "9812"})
    start_workers(1, concurrency=1, lease_s=5)
    wait_until(lambda: len(queue.dead_jobs(conn)) == 2, timeout=30, what="two dead jobs")
    dead = {d.type: d for d in queue.dead_jobs(conn)}
    assert dead["no_such_type"].reason == "unknown_type" and dead["no_such_type"].attempts == 1
    assert "no handler for job type 'no_such_type'" in dead["no_such_type"].error
    assert dead["needs_order"].reason == "bad_payload" and "not int" in dead["needs_order"].error


def test_notify_wakes_an_idle_worker_long_before_its_poll(runs, start_workers):
    start_workers(1, concurrency=1, lease_s=5, poll_interval_s=30)
    time.sleep(2)  # let it go idle, listening
    queue.enqueue(runs, "record", {})
    wait_until(lambda: jobs_left(runs) == 0, timeout=15, what="the notified worker to run the job")


def test_a_polling_worker_finds_jobs_without_notify(runs, start_workers):
    start_workers(1, concurrency=1, lease_s=5, poll_interval_s=0.2, listen=False)
    queue.enqueue(runs, "record", {}, notify=False)
    wait_until(lambda: jobs_left(runs) == 0, timeout=30, what="the polling worker to run the job")


def test_a_failing_statement_is_logged_once_and_the_worker_carries_on(runs, start_workers):
    [w] = start_workers(1, concurrency=1, lease_s=5, poll_interval_s=0.2, listen=False)
    wait_until(lambda: "queue 'default'" in w.log(), 30, what="the worker to start")
    runs.execute("ALTER TABLE jobs RENAME TO jobs_away")  # the claim now fails: no such table
    time.sleep(1.5)
    assert w.alive(), w.log_tail()
    runs.execute("ALTER TABLE jobs_away RENAME TO jobs")
    queue.enqueue(runs, "record", {}, notify=False)
    wait_until(lambda: jobs_left(runs) == 0, timeout=30, what="the worker to run the job once the table is back")
    log = w.log()
    assert log.count('relation "jobs" does not exist') == 1, w.log_tail()
    assert "retrying every 0.2 s" in log, w.log_tail()  # not "every 0 s"
    assert log.count("statements succeed again") == 1, w.log_tail()
    assert log.index('relation "jobs" does not exist') < log.index("statements succeed again")


def test_the_worker_settings_choose_the_retry_backoff(conn, schema):
    """retry_base_s/retry_cap_s (--retry-base-s/--retry-cap-s) reach fail(): every wait stays under the cap."""
    import threading

    from course.infra import db
    from course.core.worker import Registry, Settings, Worker

    outcomes = []

    class RecordingQueue:  # course.core.queue, noting what each fail() decided
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
    from course.infra import processes

    child = processes.python("worker", "course", "worker", "--app", RECORDING_APP, "--retry-base-s", "0")
    assert child.wait(30) == 2
    assert "--retry-base-s/--retry-cap-s" in child.log() and "Traceback" not in child.log()


# -- nothing a handler does may stop a worker or strand a job (in-process workers, to watch them) --------

import contextlib  # noqa: E402
import logging  # noqa: E402
import threading  # noqa: E402

from types import SimpleNamespace  # noqa: E402

import psycopg  # noqa: E402

from course.infra import db  # noqa: E402
from course.errors import PermanentError  # noqa: E402
from course.core.worker import Hooks, Registry, Settings, Worker  # noqa: E402


@contextlib.contextmanager
def worker_thread(schema, registry, *, hooks=None, ops=queue, **settings):
    """A Worker running in a thread of this process; stopped (and required to stop) at the end."""
    options = {"concurrency": 1, "lease_s": 5, "poll_interval_s": 0.05, "listen": False,
               "retry_base_s": 0.01, "retry_cap_s": 0.02, **settings}
    worker = Worker(db.conninfo(schema), registry, Settings(**options), hooks=hooks or Hooks(), ops=ops)
    outcome = {}

    def run():
        try:
            outcome["exit"] = worker.run()
        except BaseException as error:  # noqa: BLE001 - the test reports it
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield worker
    finally:
        worker.stop()
        thread.join(30)
    assert not thread.is_alive(), "the worker did not stop within 30 s of stop()"
    assert outcome == {"exit": 0}, outcome


@pytest.mark.parametrize("odd, shown", [("\x00", "\N{REPLACEMENT CHARACTER}"), ("\udc80", "\\udc80")],
                         ids=["NUL", "lone surrogate"])
def test_a_handler_error_text_postgresql_cannot_store_is_dead_lettered_and_the_next_job_runs(conn, schema, odd,
                                                                                              shown):
    """NUL cannot be stored in text; a lone surrogate (a bad decode's leftovers) cannot even be sent as UTF-8.
    Either one in an error message must not stop the job from being retried and buried, nor the worker."""
    registry, ran = Registry(), []

    @registry.handler("nul")
    def nul(job):
        raise RuntimeError(f"bad{odd}byte")

    @registry.handler("ok")
    def ok(job):
        ran.append(job.id)

    bad = queue.enqueue(conn, "nul", {}, max_attempts=2)
    good = queue.enqueue(conn, "ok", {})
    with worker_thread(schema, registry):
        wait_until(lambda: ran and queue.dead_jobs(conn), timeout=30, what="the poison job buried, the next run")
    [dead] = queue.dead_jobs(conn)
    assert (dead.id, dead.attempts, ran) == (bad, 2, [good])
    assert f"bad{shown}byte" in dead.error and f"bad{shown}byte" in dead.traceback


@pytest.mark.parametrize("raised", [SystemExit(3), KeyboardInterrupt(), GeneratorExit()],
                         ids=lambda e: type(e).__name__)
def test_a_handler_raising_a_base_exception_fails_its_attempt_and_the_worker_carries_on(conn, schema, raised):
    registry, ran = Registry(), []

    @registry.handler("explode")
    def explode(job):
        raise raised

    @registry.handler("ok")
    def ok(job):
        ran.append(job.id)

    bad = queue.enqueue(conn, "explode", {}, max_attempts=2)
    good = queue.enqueue(conn, "ok", {})
    with worker_thread(schema, registry) as worker:
        wait_until(lambda: ran and queue.dead_jobs(conn), timeout=30, what="the job buried, the next one run")
    [dead] = queue.dead_jobs(conn)
    assert (dead.id, dead.reason, dead.attempts, ran) == (bad, "max_attempts", 2, [good])
    assert dead.error.startswith(type(raised).__name__)
    assert worker.counters.failed == 2


def test_each_failed_attempt_is_logged_in_one_line(conn, schema, caplog):
    registry = Registry()

    @registry.handler("flaky")
    def flaky(job):
        raise ConnectionError("503 from the provider\nand a second line nobody needs")

    @registry.handler("silent")
    def silent(job):
        raise ValueError()  # no message at all

    first = queue.enqueue(conn, "flaky", {}, max_attempts=2)
    second = queue.enqueue(conn, "silent", {}, max_attempts=1)
    with caplog.at_level(logging.INFO, logger="course.core.worker"):
        with worker_thread(schema, registry):
            wait_until(lambda: len(queue.dead_jobs(conn)) == 2, timeout=30, what="both jobs buried")
    lines = [r.getMessage() for r in caplog.records if "failed" in r.getMessage() and "job " in r.getMessage()]
    assert len(lines) == 3, lines
    assert any(f"job {first} " in line and "attempt 1 of 2" in line and "ConnectionError: 503 from the provider"
               in line for line in lines), lines
    assert any(f"job {first} " in line and "attempt 2 of 2" in line and "dead-lettered" in line for line in lines)
    assert any(f"job {second} " in line and "ValueError" in line for line in lines), lines
    assert not any("second line" in line for line in lines)


def test_a_database_error_with_an_empty_message_is_logged_and_the_worker_carries_on(conn, schema):
    calls = []

    class EmptyErrorOnce:
        def __getattr__(self, name):
            return getattr(queue, name)

        def claim(self, *args, **kwargs):
            calls.append(1)
            if len(calls) == 1:
                raise psycopg.errors.UndefinedTable("")  # a statement error, not a lost connection
            return queue.claim(*args, **kwargs)

    registry, ran = Registry(), []
    registry.handler("ok")(lambda job: ran.append(job.id))
    job_id = queue.enqueue(conn, "ok", {})
    with worker_thread(schema, registry, ops=EmptyErrorOnce()):
        wait_until(lambda: ran, timeout=30, what="the job to run after the failed claim")
    assert ran == [job_id]


def test_an_ack_that_committed_before_the_connection_dropped_counts_as_an_ack(conn, schema):
    """The ack's COMMIT reached the database, its answer did not: the retry must recognise its own ack."""
    acked, dropped = [], []

    class DropAfterFirstAck:
        def __getattr__(self, name):
            return getattr(queue, name)

        def ack_many(self, connection, jobs):
            return self.drop_the_first(connection, queue.ack_many(connection, jobs))

        def ack_and_claim(self, connection, jobs, *args, **kwargs):
            acked, claimed = queue.ack_and_claim(connection, jobs, *args, **kwargs)
            return self.drop_the_first(connection, acked), claimed

        def drop_the_first(self, connection, done):
            if not dropped:
                dropped.append(done)
                connection.close()
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return done

    class Recording(Hooks):
        def acked(self, ids):
            acked.append(set(ids))

    registry = Registry()
    registry.handler("ok")(lambda job: None)
    job_id = queue.enqueue(conn, "ok", {})
    with worker_thread(schema, registry, hooks=Recording(), ops=DropAfterFirstAck()) as worker:
        wait_until(lambda: acked or worker.counters.lost_leases, timeout=30, what="the ack to be reported")
    assert dropped == [{job_id}] and jobs_left(conn) == 0
    assert acked == [{job_id}] and worker.counters.lost_leases == 0 and worker.counters.succeeded == 1


@pytest.mark.parametrize("permanent, fate", [(False, "retry scheduled"), (True, "dead")])
def test_a_fail_that_committed_before_the_connection_dropped_is_reported_as_what_it_is(conn, schema, caplog,
                                                                                        permanent, fate):
    """fail()'s COMMIT reached the database, its answer did not. The retry finds the lease gone: that is
    our own report, not another worker, and the log must say so (it used to say "lease lost")."""
    calls = []

    class DropAfterFirstFail:
        def __getattr__(self, name):
            return getattr(queue, name)

        def fail(self, connection, job, error, **options):
            calls.append(job.id)
            outcome = queue.fail(connection, job, error, **options)
            if len(calls) == 1:
                connection.close()
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return outcome

    registry = Registry()

    @registry.handler("flaky")
    def flaky(job):
        raise (PermanentError if permanent else ConnectionError)("503 from the provider")

    job_id = queue.enqueue(conn, "flaky", {}, max_attempts=5)
    caplog.set_level(logging.INFO, logger="course.core.worker")
    # A retry 60 s away: the job cannot come back and muddle the count while the test watches.
    with worker_thread(schema, registry, ops=DropAfterFirstFail(), retry_base_s=60, retry_cap_s=60) as worker:
        wait_until(lambda: worker.counters.failed, timeout=30, what="the failure to be reported")
    assert calls == [job_id, job_id], "the report was retried once after the reconnect"
    failures = [r.getMessage() for r in caplog.records if "failed: " in r.getMessage()]
    assert len(failures) == 1, failures
    assert f"the connection dropped before fail() answered; the job is {fate}" in failures[0]
    assert "lease lost" not in failures[0]
    if permanent:
        assert [d.id for d in queue.dead_jobs(conn)] == [job_id]
    else:
        token, attempts = conn.execute("SELECT lease_token, attempts FROM jobs WHERE id = %s", [job_id]).fetchone()
        assert (token, attempts) == (None, 1), "retried once, by the first report"


def test_a_fail_whose_job_moved_on_after_the_drop_is_reported_as_unknown_not_as_a_retry(conn, schema, caplog):
    """The connection dropped before fail() reached the database, and meanwhile another worker took the
    job: the retry finds the lease gone, and the worker must not claim the report went through."""
    calls = []

    class DropBeforeFirstFail:
        def __getattr__(self, name):
            return getattr(queue, name)

        def fail(self, connection, job, error, **options):
            calls.append(job.id)
            if len(calls) == 1:
                with psycopg.connect(db.conninfo(schema), autocommit=True) as other:
                    other.execute("UPDATE jobs SET run_at = now() WHERE id = %s", [job.id])  # our lease ran out
                    assert queue.claim_one(other, lease_s=60).id == job.id  # and another worker took the job
                connection.close()
                raise psycopg.OperationalError("server closed the connection unexpectedly")
            return queue.fail(connection, job, error, **options)

    registry = Registry()
    registry.handler("flaky")(lambda job: (_ for _ in ()).throw(ConnectionError("503")))
    job_id = queue.enqueue(conn, "flaky", {}, max_attempts=5)
    caplog.set_level(logging.INFO, logger="course.core.worker")
    with worker_thread(schema, registry, ops=DropBeforeFirstFail()) as worker:
        wait_until(lambda: worker.counters.failed, timeout=30, what="the failure to be reported")
    [failure] = [r.getMessage() for r in caplog.records if "failed: " in r.getMessage()]
    assert "outcome unknown: the connection dropped before fail() answered" in failure, failure
    assert conn.execute("SELECT attempts FROM jobs WHERE id = %s", [job_id]).fetchone()[0] == 2


def test_handler_threads_adding_connections_at_once_lose_none(monkeypatch):
    """Each handler thread adds its connection to the worker's list (so run() can close them all). The
    interleaving is forced, not hoped for: thread A reads the list and then waits until thread B has
    either read it too (no lock: both write back what they read, and one connection is lost) or is
    waiting for the lock (then B reads after A's write). Without the lock this fails every time."""
    from course.core import worker as worker_module

    opened = []

    def connect(*args, **kwargs):
        conn = SimpleNamespace(closed=False, broken=False)
        opened.append(conn)
        return conn

    monkeypatch.setattr(worker_module.psycopg, "connect", connect)
    worker = Worker("", Registry())
    a_has_read, b_has_read_or_waits = threading.Event(), threading.Event()

    class SlowToRead(list):
        def __iter__(self):
            seen = list(super().__iter__())  # the read happens now; the writer uses what it saw
            if threading.current_thread().name == "A":
                a_has_read.set()
                assert b_has_read_or_waits.wait(30), "thread B never reached the list or the lock"
            else:
                b_has_read_or_waits.set()
            return iter(seen)

    class TellingLock:
        def __init__(self):
            self.lock = threading.Lock()

        def __enter__(self):
            if threading.current_thread().name == "B":
                b_has_read_or_waits.set()  # about to wait for A, which holds the lock
            return self.lock.__enter__()

        def __exit__(self, *exc):
            return self.lock.__exit__(*exc)

    worker._handler_conns = SlowToRead()
    worker._handler_conns_lock = TellingLock()
    a = threading.Thread(target=worker._handler_connection, name="A")
    a.start()
    assert a_has_read.wait(30), "thread A never read the list"
    b = threading.Thread(target=worker._handler_connection, name="B")
    b.start()
    a.join(30)
    b.join(30)
    assert len(opened) == 2
    assert sorted(map(id, worker._handler_conns)) == sorted(map(id, opened)), "a connection was lost"


def test_a_handler_connection_the_server_closed_while_idle_is_replaced_before_the_handler_gets_it(conn, schema):
    """The server closes an idle handler connection (pg_terminate_backend here; a restart does the same to
    all of them): psycopg does not know yet, but the next job must get a new connection, not that one."""
    worker = Worker(db.conninfo(schema), Registry())
    first = worker._handler_connection()
    pid = first.info.backend_pid
    assert conn.execute("SELECT pg_terminate_backend(%s, 10000)", [pid]).fetchone()[0]
    assert not first.closed and not first.broken, "psycopg learns of it only at the next statement"
    second = worker._handler_connection()
    assert second is not first and first.closed
    assert second.execute("SELECT 1").fetchone() == (1,)
    assert worker._handler_connection() is second, "a healthy connection is kept"
    second.close()


def test_a_handler_connection_is_retried_while_the_database_restarts_and_given_up_after_a_lease(monkeypatch):
    from course.core import worker as worker_module

    tries = []
    answers_from = 3  # the try the database answers; later reset to never

    def connect(*args, **kwargs):
        tries.append(time.monotonic())
        if len(tries) < answers_from:
            raise psycopg.OperationalError("the database system is starting up")
        return SimpleNamespace(closed=False, broken=False)

    monkeypatch.setattr(worker_module.psycopg, "connect", connect)
    worker = Worker("", Registry(), Settings(lease_s=1))
    assert worker._handler_connection() is not None and len(tries) == 3
    tries.clear()
    answers_from = float("inf")
    worker._handler_local.conn = None
    with pytest.raises(psycopg.OperationalError, match="starting up"):
        worker._handler_connection()
    assert len(tries) >= 3 and tries[-1] - tries[0] < 1, "retried, and given up within a lease (1 s)"


def test_a_handler_that_leaves_a_transaction_open_fails_its_attempt_and_the_next_job_starts_clean(conn, schema):
    """The thread's connection is autocommit, but `BEGIN` opens a transaction all the same. Left open, the
    handler's work is not committed (acking the job would lose it) and the next job on that thread would
    run inside it. The worker rolls it back and fails the attempt, saying why."""
    conn.execute("CREATE TABLE effects (job_id bigint)")
    registry = Registry()

    @registry.handler("forgets_commit")
    def forgets_commit(job, conn):
        conn.execute("BEGIN")
        conn.execute("INSERT INTO effects VALUES (%s)", [job.id])

    @registry.handler("ok")
    def ok(job, conn):
        conn.execute("INSERT INTO effects VALUES (%s)", [job.id])

    bad = queue.enqueue(conn, "forgets_commit", {}, max_attempts=1)
    good = queue.enqueue(conn, "ok", {})
    with worker_thread(schema, registry):  # one handler thread: the second job runs on the same connection
        wait_until(lambda: jobs_left(conn) == 0, timeout=30, what="both jobs reported")
    [dead] = queue.dead_jobs(conn)
    assert dead.id == bad and "returned with a transaction still open" in dead.error, dead.error
    assert conn.execute("SELECT job_id FROM effects").fetchall() == [(good,)]
