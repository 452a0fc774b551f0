"""What users will get wrong, tried on purpose: each time a clear error (one line, no traceback, saying
what to do) and nothing lost or half-written.

Restarting PostgreSQL under a worker happens on a server of the test's own: the shared one is never
stopped.
"""

import os
import re
import subprocess
import sys

import psycopg
import pytest

from course.infra import db
from course.core import queue, worker
from course.infra.private_server import PrivateServer
from course.errors import CourseError, InvalidArgument, InvalidJob
from course.infra.processes import wait_until
from course.core.worker import Registry, Settings, Worker

from tests.apps.recording import RUNS_TABLE
from tests.conftest import RECORDING_APP
from tests.core.test_payloads import LONE_SURROGATE, nested

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



# -- what PostgreSQL cannot store ---------------------------------------------------------------------


@pytest.mark.parametrize("call, says", [
    (lambda c: queue.enqueue(c, "send", {"name": "caf" + LONE_SURROGATE}), "lone surrogate"),
    (lambda c: queue.enqueue(c, "send", {LONE_SURROGATE: 1}), "lone surrogate"),
    (lambda c: queue.enqueue_many(c, "send", [{"n": 1}, {"n": [LONE_SURROGATE]}]), "payload number 1"),
    (lambda c: queue.enqueue(c, "send", {}, unique_key="order-" + LONE_SURROGATE), "unique_key"),
    (lambda c: queue.enqueue(c, "send", {"deep": nested(5000)}), "nested deeper than"),
    (lambda c: queue.enqueue(c, "send", {"deep": nested(queue.MAX_PAYLOAD_DEPTH)}), "nested deeper than"),
    (lambda c: queue.enqueue_many(c, "send", [{"deep": nested(5000)}]), "nested deeper than"),
    (lambda c: queue.redrive(c, [2**70]), "job id"),
    (lambda c: queue.redrive(c, [0]), "job id"),
    (lambda c: queue.redrive(c, ["12"]), "job id"),
    (lambda c: queue.redrive(c, 12), "a list of job ids"),
    (lambda c: queue.claim(c, worker="w" + LONE_SURROGATE), "worker"),
    (lambda c: queue.claim(c, worker="w\x00"), "worker"),
])
def test_input_the_database_cannot_take_gets_a_course_error_and_leaves_the_callers_transaction_usable(conn, call,
                                                                                                     says):
    queue.enqueue(conn, "send", {"n": 0})
    with conn.transaction():
        with pytest.raises(CourseError, match=re.escape(says)) as refused:
            call(conn)
        assert "\n" not in str(refused.value) and "Nothing was" in str(refused.value), refused.value
        assert count(conn) == 1, "the transaction goes on: nothing written, nothing aborted"
    assert count(conn) == 1


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
    with pytest.raises(InvalidArgument, match="lease_s is in seconds and must be more than 0"):
        queue.claim(conn, lease_s=lease)
    job = queue.claim_one(conn, lease_s=5)
    with pytest.raises(InvalidArgument, match="lease_s is in seconds"):
        queue.extend_lease(conn, job, lease)
    with pytest.raises(InvalidArgument, match="lease_s is in seconds"):
        Worker("", Registry(), Settings(lease_s=lease))
    assert conn.execute("SELECT attempts FROM jobs").fetchone()[0] == 1, "only the valid claim counted"


@pytest.mark.slow
def test_a_worker_started_with_a_zero_lease_says_so_in_one_line(schema):
    one_clear_error(run_course("worker", "--app", RECORDING_APP, "--lease-s", "0", "--dsn", db.conninfo(schema)),
                    "lease_s is in seconds and must be more than 0")
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
    [noop_only] = start_workers(1, app="course.evidence.benchmarks.apps:handlers", lease_s=5)
    wait_until(lambda: queue.dead_jobs(conn), timeout=60, what="the dead letter")
    [dead] = queue.dead_jobs(conn)
    assert (dead.id, dead.reason, dead.payload) == (job_id, "unknown_type", {"order_id": 98})
    assert "no handler for job type 'record' (this worker handles: noop, stamp)" in dead.error
    assert noop_only.terminate() == 0
    assert queue.redrive(conn, type="record") == [job_id]
    start_workers(1, lease_s=5)  # the recording app knows 'record'
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
        with worker.spawn(RECORDING_APP, dsn=server.conninfo(), concurrency=4, lease_s=2, poll_interval_s=0.2,
                          name="restart-worker") as child:  # killed on the way out if it still runs
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


@pytest.mark.parametrize("mode", ["fast", "immediate"])
@pytest.mark.slow
def test_a_restart_while_the_handler_threads_are_idle_costs_no_job_an_attempt(mode):
    """Each handler thread keeps its connection between jobs; a restart closes them all from the server's side
    while the threads wait for work. The next jobs must run on fresh connections, not fail on the dead ones:
    with max_attempts=1 a failed attempt would be a dead letter."""
    with PrivateServer(prefix="badinput-") as server, psycopg.connect(server.conninfo(), autocommit=True) as conn:
        queue.install(conn)
        conn.execute(RUNS_TABLE)
        dsn = server.conninfo(application_name="idle-restart")
        with worker.spawn(RECORDING_APP, dsn=dsn, concurrency=4, lease_s=30, poll_interval_s=0.2,
                          name="idle-restart-worker") as child:
            # Four jobs claimed together, each sleeping: each of the four threads runs one and keeps its connection.
            queue.enqueue_many(conn, "record", [{"n": n, "sleep_s": 0.5} for n in range(4)])
            wait_until(lambda: count(conn) == 0, 60, what="the first four jobs")
            sessions = "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'idle-restart'"
            assert conn.execute(sessions).fetchone()[0] == 6, "the main loop, the listener and four handler threads"
            server.restart(mode)  # every thread idle, holding a connection the server has closed
            with psycopg.connect(server.conninfo(), autocommit=True) as fresh:
                after = queue.enqueue_many(fresh, "record", [{"n": n} for n in range(4, 12)], max_attempts=1)
                wait_until(lambda: count(fresh) == 0, 120, what="the jobs enqueued after the restart")
                dead = fresh.execute("SELECT id, error FROM dead_jobs").fetchall()
                assert dead == [], f"a restart cost these jobs their only attempt: {dead}"
                ran = [row[0] for row in fresh.execute("SELECT job_id FROM runs WHERE job_id = ANY(%s)", [after])]
                assert sorted(ran) == sorted(after)
            assert child.terminate() == 0, child.log_tail()


# -- every input to enqueue: stored and read back equal, or refused with nothing written -----------------

hypothesis = pytest.importorskip("hypothesis")
from datetime import date, datetime, timedelta, timezone  # noqa: E402
from decimal import Decimal  # noqa: E402

from collections import Counter  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


# Lone surrogates are not Unicode (a bad decode's leftovers); PostgreSQL cannot take them, nor NUL.
# (A list joined, not st.text: text() folds the odd characters into one alphabet of a million, where
# they are almost never drawn, and drops the surrogates.)
ODD_TEXT = st.lists(st.characters(codec="utf-8")
                    | st.sampled_from(["\x00", "\N{GRINNING FACE}", "'", "\\", "\ud800", "\udfff"]),
                    max_size=30).map("".join)
# Rare, big or deep values: 11,000 CJK characters are 33 KB of UTF-8 (stored), 22,000 are 66 KB (refused);
# 98 levels of nesting inside a payload's dict are stored, 5,000 refused.
EXTREME = st.sampled_from(["\N{CJK UNIFIED IDEOGRAPH-4E2D}" * 11_000, "\N{CJK UNIFIED IDEOGRAPH-4E2D}" * 22_000]) \
    | st.builds(nested, st.sampled_from([98, 5000]))  # printed as nested(5000) in a failure, not drawn out
JSON_LEAF = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-(10**40), max_value=10**40)
             | st.floats(allow_nan=True, allow_infinity=True) | ODD_TEXT)
NOT_JSON = st.sampled_from([{1, 2}, b"bytes", Decimal("1.5"), date(2026, 1, 1), object()]) | st.builds(pow, st.just(10), st.just(5000))
PAYLOAD_VALUE = st.recursive(JSON_LEAF | NOT_JSON | EXTREME, lambda inner: st.lists(inner, max_size=3)
                             | st.dictionaries(ODD_TEXT, inner, max_size=3), max_leaves=8)
PAYLOAD = st.none() | st.dictionaries(ODD_TEXT, PAYLOAD_VALUE, max_size=4) | JSON_LEAF | st.lists(JSON_LEAF, max_size=2)
NAME = st.sampled_from(["send_receipt", "a", "x" * 100]) | ODD_TEXT
NUMBER = (st.integers(min_value=-(10**20), max_value=10**20) | st.floats(allow_nan=True, allow_infinity=True)
          | st.sampled_from([True, None, "5", 0, 1, 1000, 1001, -1]))
RUN_AT = st.none() | st.datetimes(timezones=st.none() | st.just(timezone.utc)
                                  | st.builds(lambda h: timezone(timedelta(hours=h)), st.integers(-23, 23))) \
    | st.sampled_from(["tomorrow", 1234567890, date(2026, 1, 1)])


def same_json(stored, given) -> bool:
    """Equal as JSON numbers are: jsonb keeps a number as the decimal it was written as, so 1e300 comes
    back as the integer 10**300 (the same number, written out) and 1.0 as 1.0."""
    if isinstance(given, float) and isinstance(stored, (int, float)) and not isinstance(stored, bool):
        return float(stored) == given
    if isinstance(given, dict) and isinstance(stored, dict):
        return stored.keys() == given.keys() and all(same_json(stored[k], given[k]) for k in given)
    if isinstance(given, (list, tuple)) and isinstance(stored, list):
        return len(stored) == len(given) and all(same_json(s, g) for s, g in zip(stored, given))
    return type(stored) is type(given) and stored == given


def leaves(value):
    """Every key and value inside `value`, however deep (a loop: some are nested 5,000 levels)."""
    todo = [value]
    while todo:
        item = todo.pop()
        yield item
        if isinstance(item, dict):
            todo.extend(item)
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)


def mostly(valid, odd):
    """Valid three times in four: with every argument odd, nearly every case would be refused."""
    return st.one_of(valid, valid, valid, odd)


SEEN = Counter()  # what the fuzz tried, over a whole run: a fuzz that never reaches a case cannot fail on it


@settings(max_examples=int(os.environ.get("COURSE_FUZZ_EXAMPLES", "300")), deadline=None, database=None,
          derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.fixed_dictionaries({}, optional={
    "type": mostly(st.sampled_from(["send_receipt", "x" * 100, "a.b:c-d_9"]), NAME),
    "payload": mostly(st.dictionaries(st.text(max_size=10), JSON_LEAF | st.lists(JSON_LEAF, max_size=3),
                                      max_size=4), PAYLOAD),
    "queue": mostly(st.sampled_from(["default", "emails"]), NAME),
    "priority": mostly(st.integers(-32768, 32767), NUMBER),
    "delay_s": mostly(st.floats(0, 10**6) | st.integers(0, 10**6), NUMBER),
    "run_at": RUN_AT,
    "max_attempts": mostly(st.integers(1, 1000), NUMBER),
    "unique_key": mostly(st.none() | st.text(min_size=1, max_size=200), ODD_TEXT | st.just("k" * 201))}))
def enqueue_fuzz(conn, data):
    conn.execute("TRUNCATE jobs")
    args = {"type": "send_receipt", **data}
    if any(isinstance(text, str) and ("\ud800" in text or "\udfff" in text) for text in leaves(data)):
        SEEN["a lone surrogate somewhere"] += 1
    with conn.transaction():  # the caller's own transaction must stay usable after a refusal
        try:
            job_id = queue.enqueue(conn, args.pop("type"), args.pop("payload", None), **args)
        except CourseError as error:
            message = str(error)
            assert "\n" not in message and "Nothing was" in message, message
            assert count(conn) == 0
            SEEN["refused"] += 1
            return
        assert count(conn) == 1
    SEEN["stored"] += 1
    row = conn.execute("SELECT id, type, queue, payload, priority, max_attempts, unique_key, run_at, due_at, "
                       "extract(epoch FROM run_at - created_at)::float8 FROM jobs").fetchone()
    assert row[0] == job_id
    assert row[1:3] == (data.get("type", "send_receipt"), data.get("queue", "default"))
    assert same_json(row[3], data.get("payload") or {}), (row[3], data.get("payload"))
    assert (row[4], row[5], row[6]) == (data.get("priority", 0), data.get("max_attempts", queue.MAX_ATTEMPTS),
                                        data.get("unique_key"))
    assert row[8] == row[7], "due_at starts as run_at"
    if data.get("run_at") is not None:
        assert row[7] == data["run_at"]
    else:  # run_at = now() + delay_s, created_at = now(): the same transaction, the same now()
        assert abs(row[9] - data.get("delay_s", 0)) < 1e-3, (row[9], data.get("delay_s"))
        SEEN["stored with a delay_s above 0"] += data.get("delay_s", 0) > 0


def test_every_enqueue_either_stores_a_job_that_reads_back_equal_or_is_refused_with_nothing_written(fuzz_conn):
    SEEN.clear()
    enqueue_fuzz(fuzz_conn)
    tried = set(SEEN)
    assert tried >= {"stored", "refused", "stored with a delay_s above 0", "a lone surrogate somewhere"}, SEEN


@pytest.fixture(scope="module")
def fuzz_conn(database):
    name = "t_fuzz_enqueue"
    db.reset_schema(name)
    with db.connect(name) as conn:
        queue.install(conn)
        yield conn
    db.drop_schema(name)
