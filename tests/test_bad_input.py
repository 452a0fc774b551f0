"""What users will get wrong, tried on purpose: each time a clear error (one line, no traceback, saying
what to do) and nothing lost or half-written.

Restarting PostgreSQL under a worker happens on a server of the test's own: the shared one is never
stopped.
"""

import re
import subprocess
import sys

import psycopg
import pytest

from course import db, queue, worker
from course.benchmarks.server import PrivateServer
from course.errors import InvalidArgument, InvalidJob
from course.processes import wait_until
from course.worker import Registry, Settings, Worker

from .apps.recording import RUNS_TABLE
from .conftest import RECORDING_APP

SQL_IN_A_NAME = "x'); DROP TABLE jobs; --"


def count(conn, table="jobs"):
    return conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


def run_course(*args, env=None, timeout=60):
    """`python -m course ...` as a user would type it."""
    return subprocess.run([sys.executable, "-m", "course", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def one_clear_error(result, *phrases):
    output = result.stdout + result.stderr
    assert result.returncode == 2, output
    assert "Traceback" not in output, output
    assert output.count("error:") == 1, output
    for phrase in phrases:
        assert phrase in output, output


# -- payloads ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("payload, message", [
    ('{"order_id": 98', "payload must be a dict"),  # JSON text, and broken at that
    (b'{"order_id": 98}', "payload must be a dict, not bytes"),
    ([98, 99], "payload must be a dict (a JSON object), not list"),
    ({"order_id": {1, 2}}, "cannot be stored as JSON"),
    ({"ratio": float("inf")}, "cannot be stored as JSON"),
])
def test_a_payload_that_is_not_a_json_object_is_refused_and_nothing_stored(conn, payload, message):
    with pytest.raises(InvalidJob, match=re.escape(message)) as raised:
        queue.enqueue(conn, "send_receipt", payload)
    assert "Nothing was enqueued" in str(raised.value)
    assert count(conn) == 0


def test_broken_json_written_with_sql_is_refused_by_postgresql(conn):
    with pytest.raises(psycopg.errors.InvalidTextRepresentation, match="json"):
        conn.execute("""INSERT INTO jobs (type, payload) VALUES ('send_receipt', '{"order_id": 98')""")
    assert count(conn) == 0


@pytest.mark.slow
def test_json_that_is_not_an_object_is_dead_lettered_at_once_and_the_rest_still_run(conn, start_workers):
    # Another producer (a script, another language) wrote these with SQL, past our checks.
    conn.execute("""INSERT INTO jobs (type, payload) VALUES ('noop', '"order 98"'), ('noop', '[98]'),
                                                            ('noop', 'null')""")
    good = queue.enqueue(conn, "noop", {"order_id": 98})
    start_workers(1, concurrency=2, lease=5)
    wait_until(lambda: count(conn) == 0, timeout=60, what="the queue to empty")
    dead = queue.dead_jobs(conn)
    assert len(dead) == 3 and {d.reason for d in dead} == {"bad_payload"}
    assert {d.error for d in dead} == {f"payload must be a JSON object, not {text}"
                                       for text in ('"order 98"', "[98]", "null")}
    assert {d.attempts for d in dead} == {1}
    assert good not in {d.id for d in dead}


def test_an_oversized_payload_is_refused_at_the_limit_not_before(conn):
    envelope = len('{"blob":""}')
    assert queue.enqueue(conn, "import", {"blob": "x" * (queue.MAX_PAYLOAD_BYTES - envelope)})
    with pytest.raises(InvalidJob, match="the limit is 64 KiB. Put ids in the job"):
        queue.enqueue(conn, "import", {"blob": "x" * (queue.MAX_PAYLOAD_BYTES - envelope + 1)})
    with pytest.raises(InvalidJob, match="payload number 2"):
        queue.enqueue_many(conn, "import", [{"n": 1}, {"n": 2}, {"blob": "é" * 40_000}])  # 2 bytes each
    assert count(conn) == 1, "only the job at the limit: none of the batch with an oversized payload"


# -- names -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("call", [
    lambda c: queue.enqueue(c, SQL_IN_A_NAME, {}),
    lambda c: queue.enqueue(c, "send", {}, queue=SQL_IN_A_NAME),
    lambda c: queue.enqueue_many(c, SQL_IN_A_NAME, [{}]),
    lambda c: queue.claim(c, SQL_IN_A_NAME),
    lambda c: queue.redrive(c, type=SQL_IN_A_NAME),
    lambda c: Registry().handler(SQL_IN_A_NAME),
    lambda c: Worker("", Registry(), Settings(queue=SQL_IN_A_NAME)),
])
def test_sql_in_a_queue_or_type_name_is_refused_before_reaching_the_database(conn, call):
    queue.enqueue(conn, "send", {"n": 1})
    with pytest.raises(InvalidJob, match="is not a valid name"):
        call(conn)
    assert count(conn) == 1 and conn.execute("SELECT to_regclass('jobs')").fetchone()[0] is not None


@pytest.mark.slow
def test_a_worker_told_a_queue_name_with_sql_in_it_says_so_in_one_line(schema):
    result = run_course("worker", "--app", RECORDING_APP, "--queue", SQL_IN_A_NAME, "--dsn", db.conninfo(schema))
    one_clear_error(result, "is not a valid name")


# -- numbers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lease", [0, -1, -0.5, float("nan"), float("inf"), "30", True])
def test_a_lease_that_is_not_a_positive_number_of_seconds_is_refused(conn, lease):
    queue.enqueue(conn, "send", {})
    with pytest.raises(InvalidArgument, match="lease is in seconds and must be more than 0"):
        queue.claim(conn, lease=lease)
    job = queue.claim_one(conn, lease=5)
    with pytest.raises(InvalidArgument, match="lease is in seconds"):
        queue.extend_lease(conn, job, lease)
    with pytest.raises(InvalidArgument, match="lease is in seconds"):
        Worker("", Registry(), Settings(lease_s=lease))
    assert conn.execute("SELECT attempts FROM jobs").fetchone()[0] == 1, "only the valid claim counted"


@pytest.mark.slow
def test_a_worker_started_with_a_zero_lease_says_so_in_one_line(schema):
    one_clear_error(run_course("worker", "--app", RECORDING_APP, "--lease", "0", "--dsn", db.conninfo(schema)),
                    "lease is in seconds and must be more than 0")
    one_clear_error(run_course("worker", "--app", RECORDING_APP, "--concurrency", "0", "--dsn",
                               db.conninfo(schema)), "concurrency must be a whole number from 1")


@pytest.mark.parametrize("max_attempts", [0, -1, 1001, 2.5, None])
def test_max_attempts_outside_1_to_1000_is_refused(conn, max_attempts):
    with pytest.raises(InvalidArgument, match="max_attempts must be a whole number from 1 to 1000"):
        queue.enqueue(conn, "send", {}, max_attempts=max_attempts)
    with pytest.raises(InvalidArgument, match="max_attempts must be"):
        queue.enqueue_many(conn, "send", [{"n": 1}, {"n": 2}], max_attempts=max_attempts)
    assert count(conn) == 0


# -- connections and databases ------------------------------------------------------------------------


def test_enqueue_on_a_closed_connection_says_so_and_writes_nothing(schema):
    closed = db.connect(schema)
    closed.close()
    for call in (lambda: queue.enqueue(closed, "send", {}), lambda: queue.enqueue_many(closed, "send", [{}]),
                 lambda: queue.claim(closed)):
        with pytest.raises(InvalidArgument, match="The connection is closed: open a new one"):
            call()
    with db.connect(schema) as conn:
        assert count(conn) == 0


NOWHERE = "postgresql://course@127.0.0.1:1/course"  # port 1: nothing listens there


@pytest.mark.slow
def test_a_database_url_pointing_nowhere_is_one_clear_line():
    from os import environ

    env = {**environ, "DATABASE_URL": NOWHERE}
    one_clear_error(run_course("worker", "--app", RECORDING_APP, env=env),
                    "DATABASE_URL is set", "did not answer", "127.0.0.1")
    status = run_course("db", "status", env=env)
    assert status.returncode == 0 and "did not answer" in status.stdout and "Traceback" not in status.stderr


@pytest.mark.slow
def test_a_worker_whose_dsn_points_nowhere_is_one_clear_line():
    one_clear_error(run_course("worker", "--app", RECORDING_APP, "--dsn", NOWHERE), "the database did not answer")


# -- unknown job types -----------------------------------------------------------------------------


@pytest.mark.slow
def test_an_unknown_type_is_dead_lettered_with_its_payload_and_runs_once_a_worker_knows_it(conn, schema,
                                                                                           start_workers):
    conn.execute(RUNS_TABLE)
    job_id = queue.enqueue(conn, "record", {"order_id": 98})
    [noop_only] = start_workers(1, app="course.benchmarks.apps:handlers", lease=5)
    wait_until(lambda: queue.dead_jobs(conn), timeout=60, what="the dead letter")
    [dead] = queue.dead_jobs(conn)
    assert (dead.id, dead.reason, dead.payload) == (job_id, "unknown_type", {"order_id": 98})
    assert "no handler for job type 'record' (this worker handles: noop, stamp)" in dead.error
    assert noop_only.terminate() == 0
    assert queue.redrive(conn, type="record") == [job_id]
    start_workers(1, lease=5)  # the recording app knows 'record'
    wait_until(lambda: count(conn) == 0, timeout=60, what="the redriven job to run")
    assert conn.execute("SELECT job_id FROM runs").fetchall() == [(job_id,)]


# -- the database stopped under a running worker ------------------------------------------------------


@pytest.mark.parametrize("mode", ["fast", "immediate"])
@pytest.mark.slow
def test_a_worker_waits_through_a_database_restart_and_loses_nothing(mode):
    with PrivateServer(prefix="badinput-") as server, psycopg.connect(server.conninfo(), autocommit=True) as conn:
        queue.install(conn)
        conn.execute(RUNS_TABLE)
        before = queue.enqueue_many(conn, "record", [{"n": n, "sleep_s": 0.1} for n in range(40)])
        child = worker.spawn(RECORDING_APP, dsn=server.conninfo(), concurrency=4, lease=2, poll_interval=0.2,
                             name="restart-worker")
        try:
            wait_until(lambda: conn.execute("SELECT count(*) FROM runs").fetchone()[0] >= 5, 60,
                       what="the first runs")
            server.stop(mode)  # mid-drain: jobs running, connections open
            wait_until(lambda: "reconnecting" in child.log(), 30, what="the worker to notice")
            assert child.alive(), child.log_tail()
            server.start()
            with psycopg.connect(server.conninfo(), autocommit=True) as fresh:
                after = queue.enqueue_many(fresh, "record", [{"n": n} for n in range(40, 60)])
                wait_until(lambda: count(fresh) == 0, 120, what="the queue to drain after the restart")
                ran = {row[0] for row in fresh.execute("SELECT DISTINCT job_id FROM runs")}
                assert ran == set(before) | set(after), f"{len(set(before + after) - ran)} jobs lost"
                assert fresh.execute("SELECT count(*) FROM dead_jobs").fetchone()[0] == 0
            assert child.alive() and "reconnected" in child.log(), child.log_tail()
            assert child.terminate() == 0, child.log_tail()
        finally:
            if child.alive():
                child.kill()
