"""The process around the worker's loop (course.core.worker_process, and `python -m course worker`): which
schema it works on, the arguments it refuses in one line, and a stop however early it comes."""

import signal
import time

import psycopg
import pytest

from course.core import queue
from course.infra.processes import wait_until

from tests.apps.recording import RUNS_TABLE
from tests.conftest import RECORDING_APP
from tests.core.test_worker import jobs_left, runs  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow  # every test here starts worker processes or servers


def test_a_bad_app_argument_gets_one_clear_line(schema):
    from course.core import worker

    child = worker.spawn("tests/apps/recording.py:nothing_here", schema=schema)
    assert child.wait(30) == 2
    assert "has no 'nothing_here'" in child.log() and "Traceback" not in child.log()


def test_a_worker_given_a_schema_that_does_not_exist_says_so_and_exits(database):
    from course.infra import processes

    child = processes.python("worker", "course", "worker", "--app", RECORDING_APP, "--schema", "no_such_schema_x")
    assert child.wait(30) == 2, child.log_tail()
    assert "no_such_schema_x" in child.log() and "Traceback" not in child.log()


def test_a_worker_given_a_schema_without_the_jobs_table_says_so_and_exits(schema, conn):
    from course.infra import processes

    conn.execute("DROP TABLE jobs")
    child = processes.python("worker", "course", "worker", "--app", RECORDING_APP, "--schema", schema)
    assert child.wait(30) == 2, child.log_tail()
    assert "install" in child.log() and "Traceback" not in child.log()


def test_the_worker_command_works_on_the_schema_it_is_given_with_dsn_too_never_on_public():
    """--schema with --dsn (the way spawn(dsn=...) and every private server start a worker): the worker works
    on that schema's jobs table, even when public has one too, and a schema that is not there is named."""
    from course.infra import processes
    from course.infra.private_server import PrivateServer

    with (PrivateServer(prefix="schema-") as server,
          psycopg.connect(server.conninfo(), autocommit=True) as public):
        queue.install(public)
        public.execute("CREATE SCHEMA mine")
        wrong = queue.enqueue(public, "noop", {})
        with psycopg.connect(server.conninfo("mine"), autocommit=True) as mine:
            queue.install(mine)
            mine.execute(RUNS_TABLE)
            right = queue.enqueue(mine, "record", {})
            argv = ["worker", "--app", RECORDING_APP, "--dsn", server.conninfo(), "--poll-interval-s", "0.1"]
            with processes.python("schema-worker", "course", *argv, "--schema", "mine") as child:
                wait_until(lambda: jobs_left(mine) == 0, 30, what="the job in schema mine")
                assert child.terminate() == 0, child.log_tail()
            assert public.execute("SELECT id, attempts FROM jobs").fetchall() == [(wrong, 0)], "public's, untouched"
            assert mine.execute("SELECT job_id FROM runs").fetchall() == [(right,)]
        with processes.python("schema-worker", "course", *argv, "--schema", "not_there") as child:
            assert child.wait(30) == 2, child.log_tail()
            assert "the schema 'not_there' does not exist" in child.log(), child.log_tail()


@pytest.mark.parametrize("interval", ["0", "-1", "nan"])
def test_a_poll_interval_that_is_not_positive_is_refused_in_one_line(schema, interval):
    from course.infra import processes

    child = processes.python("worker", "course", "worker", "--app", RECORDING_APP, "--schema", schema,
                             "--poll-interval-s", interval)
    assert child.wait(30) == 2, child.log_tail()
    assert "poll" in child.log() and "Traceback" not in child.log()


@pytest.mark.parametrize("app, says", [
    ("no_such_module_here:handlers", "no_such_module_here"),
    ("tests/apps/raises_on_import.py:handlers", "ZeroDivisionError"),
])
def test_a_handlers_module_that_cannot_be_imported_gets_one_clear_line(schema, app, says):
    from course.core import worker

    child = worker.spawn(app, schema=schema)
    assert child.wait(30) == 2, child.log_tail()
    assert says in child.log() and "Traceback" not in child.log(), child.log_tail()


@pytest.mark.parametrize("after_s", [0, 0.05, 0.2, 0.5])
def test_a_worker_sent_sigterm_while_it_starts_exits_0_and_leaves_its_jobs_alone(runs, schema, after_s):
    """A deploy may stop a worker it has just started. However early SIGTERM comes, the worker exits 0 (a
    clean stop: a supervisor must not see a crash), and every job is still there or ran exactly once."""
    from course.core import worker

    job_id = queue.enqueue(runs, "record", {})
    child = worker.spawn(RECORDING_APP, schema=schema, concurrency=1, lease_s=30, name="early-sigterm")
    with child:
        time.sleep(after_s)
        child.signal(signal.SIGTERM)
        assert child.wait(30) == 0, child.log_tail()
    ran = runs.execute("SELECT count(*) FROM runs").fetchone()[0]
    left = runs.execute("SELECT attempts FROM jobs WHERE id = %s", [job_id]).fetchall()
    assert (ran, left) in [(0, [(0,)]), (1, [])], (ran, left, child.log_tail())


def test_a_worker_stopped_while_it_imports_its_handlers_exits_0_without_waiting_for_the_import(schema):
    """Started by hand (no signal mask from spawn), stopped while its --app module is still importing: it
    has claimed nothing, so it stops there, at once, with 0."""
    from course.infra import db, processes

    app = f"{RECORDING_APP.rsplit('/', 1)[0]}/slow_to_import.py:handlers"
    with processes.python("slow-import", "course", "worker", "--app", app, "--dsn", db.conninfo(schema)) as child:
        wait_until(lambda: "importing the handlers" in child.log(), 60, what="the import to begin")
        child.signal(signal.SIGTERM)
        assert child.wait(20) == 0, child.log_tail()
        assert "stopped while starting; nothing was claimed" in child.log()
