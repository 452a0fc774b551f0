"""The grading boundary (course/grading/boundary/): the checks call the learner's functions in another
process, lending what they pass and copying what comes back as data.

Two halves. Fidelity: an answer behaves as it does in the notebook — data round trips, the check's
connection with its transactions (nested, rolled back, failed), its row factories, psycopg errors caught
by type, the check's random generator, a lent function's exception re-raised as itself. Refusals: what
the answer's side may not do — read an attribute or call a method it was not lent, keep using a lent
object after its call returned, send back something that is not data (a value whose __eq__ says True, an
object of its own class, a SystemExit), send a broken frame — each refused, and the checks' side
carries on."""

from __future__ import annotations

import datetime as dt
import decimal
import os
import random
import socket
import subprocess
import sys
import uuid

import psycopg
import pytest

from course.infra import processes
from course.core import queue
from course.grading.boundary import wire
from course.grading.boundary.host import AnswerSide
from course.grading.boundary.admit import RemoteError
from course.grading.boundary.serving import AnswerProcessGone, TrustedSide
from course.grading.boundary.trusted import AnswerHost, LoadError
from course.grading.boundary.wire import Channel, Opaque


class _Running:
    pid = 0

    def poll(self):
        return None


@pytest.fixture
def pair():
    """Both ends in this process (the protocol, quickly): (the checks' AnswerHost, the answer's side)."""
    ours, theirs = socket.socketpair()
    answer_side = AnswerSide(Channel(theirs))
    answer_side.peer.start()
    trusted = TrustedSide(Channel(ours))
    host = AnswerHost(_Running(), trusted)
    yield host, answer_side
    trusted.peer.close()
    answer_side.peer.close()


@pytest.fixture
def process_host(tmp_path):
    """The answer's side in a process of its own, as the grader runs it."""
    host = AnswerHost.start(cwd=tmp_path, log=tmp_path / "host.log")
    yield host
    host.stop()


def define(host, source: str, *names: str, setup: str = "import psycopg\nfrom course.core import queue"):
    host.setup("test.ipynb", [setup])
    answers = host.exercise("t.x", source, list(names))
    return answers[names[0]] if len(names) == 1 else answers


# -- fidelity ------------------------------------------------------------------------------------------


VALUES = [None, True, 3, -2**70, 1.5, float("inf"), "tëxt", b"\x00\xff", [1, [2]], (1, (2, "3")),
          {1: "a", ("k", 2): [3]}, {1, 2}, frozenset({"x"}), dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc),
          dt.date(2026, 1, 2), dt.timedelta(days=1, microseconds=5), decimal.Decimal("12.50"), uuid.UUID(int=7),
          Ellipsis, queue.Retry(1.5)]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_data_crosses_both_ways_unchanged(pair, value):
    identity = define(pair[0], "def f(x):\n    return x\n", "f")
    got = identity(value)
    assert got == value and type(got) is type(value)


def test_a_named_tuple_and_a_job_come_back_as_values(pair):
    job = queue.Job(id=1, queue="default", type="t", payload={"a": [1]}, priority=0, attempts=1, max_attempts=8,
                    lease_token=uuid.UUID(int=1), lease_expires_at=dt.datetime.now(dt.timezone.utc))
    f = define(pair[0], "from collections import namedtuple\nRow = namedtuple('Row', 'id kind')\n"
                        "def f(job):\n    return job, Row(job.id, job.type)\n", "f")
    back, row = f(job)
    assert back == job and row == (1, "t") and row.kind == "t"


def test_the_checks_connection_is_lent_with_its_transactions(pair, conn):
    place = define(pair[0], """
def place(conn, fail):
    with conn.transaction():
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS t (n int)")
        conn.execute("INSERT INTO t VALUES (1)")
        with conn.transaction():
            conn.execute("INSERT INTO t VALUES (2)")
            raise psycopg.Rollback          # only the inner block: 2 goes, 1 stays
        if fail:
            raise ValueError("after the insert")
    return conn.execute("SELECT count(*) FROM t").fetchone()[0]
""", "place")
    assert place(conn, False) == 1
    with pytest.raises(ValueError, match="after the insert"):
        place(conn, True)  # the whole block rolled back: still one row
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 1
    with conn.transaction(force_rollback=True):  # the check's own transaction: the answer's work is in it
        assert place(conn, False) == 2
    assert conn.execute("SELECT count(*) FROM t").fetchone()[0] == 1
    assert conn.info.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_row_factories_run_on_the_answers_side(pair, conn):
    f = define(pair[0], """
from psycopg.rows import dict_row, class_row, namedtuple_row
def f(conn):
    conn.execute("INSERT INTO jobs (type, payload) VALUES ('t', '{}')")
    with conn.cursor(row_factory=dict_row) as cur:
        a = cur.execute("SELECT 1 AS one, 'x' AS two").fetchone()
    b = conn.cursor(row_factory=namedtuple_row).execute("SELECT 3 AS three").fetchone().three
    jobs = queue.claim(conn, limit=5, lease_s=30)
    c = [row for row in conn.execute("SELECT generate_series(1, 3)")]
    return a, b, [j.type for j in jobs], c, conn.info.transaction_status
""", "f")
    a, b, types, rows, status = f(conn)
    assert a == {"one": 1, "two": "x"} and b == 3 and types == ["t"] and rows == [(1,), (2,), (3,)]
    assert status == psycopg.pq.TransactionStatus.INTRANS or status == psycopg.pq.TransactionStatus.IDLE


def test_json_and_jsonb_parameters_reach_the_lent_connection(pair, conn):
    """psycopg's Jsonb is not a subclass of its Json (both wrap a value): each must cross as JSON, or a
    learner's own INSERT with Jsonb(...) fails with "cannot adapt type 'Opaque'" (red0's round, lab 00)."""
    f = define(pair[0], """
from psycopg.types.json import Json, Jsonb
def f(conn):
    return conn.execute("SELECT %s::jsonb, %s::json, %s::jsonb ->> 'k'",
                        [Jsonb({"user_id": 7}), Json([1, "a"]), Jsonb({"k": "é"})]).fetchone()
""", "f")
    assert f(conn) == ({"user_id": 7}, [1, "a"], "é")


def test_the_reference_queue_runs_on_a_lent_connection(process_host, conn):
    """An answer may call course.core.queue on the check's connection: claim, ack_and_claim and dead_jobs
    register a jsonb loader on their cursor, which a lent cursor takes (its rows arrive decoded)."""
    f = define(process_host, """
def f(conn):
    queue.enqueue_many(conn, "t", [{"n": 1}, {"n": 2}, {"n": 3}])
    first = queue.claim(conn, limit=1, lease_s=30)
    held, more = queue.ack_and_claim(conn, first, limit=2, lease_s=30)
    queue.bury(conn, more[0], "bad", "a test")
    return [j.payload for j in first], sorted(held) == [first[0].id], [j.payload for j in more], \
        [d.payload for d in queue.dead_jobs(conn)]
""", "f")
    first, acked, more, dead = f(conn)
    assert first == [{"n": 1}] and acked and more == [{"n": 2}, {"n": 3}] and dead == [{"n": 2}]
    assert conn.execute("SELECT payload FROM jobs").fetchall() == [({"n": 3},)]


def test_a_psycopg_error_is_caught_by_its_type_in_the_answer_and_in_the_check(pair, conn):
    f = define(pair[0], """
def f(conn):
    try:
        conn.execute("SELECT 1/0")
    except psycopg.errors.DivisionByZero as error:
        conn.rollback()
        caught = type(error).__name__
    conn.execute("SELECT * FROM no_such_table")
""", "f")
    with pytest.raises(psycopg.errors.UndefinedTable) as raised:
        f(conn)
    assert "no_such_table" in str(raised.value)
    assert raised.value.__boundary__.line == "line 8: conn.execute(\"SELECT * FROM no_such_table\")"


DRAWS = """
def draw(rng):
    items = list(range(10))
    rng.shuffle(items)
    return ([rng.uniform(0, 10) for _ in range(300)], rng.randint(1, 6), rng.choice("abc"), items, rng.gauss(0, 1),
            rng.getrandbits(100), rng.getrandbits(0), rng.randbytes(5), rng.sample(range(100), 3), rng.random())
"""


def test_the_checks_random_generator_gives_the_draws_it_would_give_here(pair):
    draw = define(pair[0], DRAWS, "draw")
    namespace: dict = {}
    exec(DRAWS, namespace)
    assert draw(random.Random(5)) == namespace["draw"](random.Random(5))  # over several batches of words
    assert draw(random.Random(5)) == draw(random.Random(5)) != draw(random.Random(6))


def test_an_exception_a_lent_function_raised_comes_back_as_itself(pair):
    relay = define(pair[0], "def relay(publish):\n    try:\n        publish()\n    except KeyError:\n        raise\n", "relay")
    error = KeyError("the very one")

    def publish():
        raise error

    with pytest.raises(KeyError) as raised:
        relay(publish)
    assert raised.value is error


def test_a_spy_hears_the_calls_the_answer_makes(pair):
    f = define(pair[0], "def helper(n):\n    return n * 2\n\ndef f(n):\n    return helper(n) + helper(n + 1)\n", "f")
    heard = []
    with f.spying("helper", lambda n: heard.append(n)):
        assert f(3) == 14
    assert heard == [3, 4]
    assert f(1) == 6 and heard == [3, 4]  # gone with the block


def test_the_answers_own_process_runs_it(process_host, conn):
    f = define(process_host, "import os\ndef f(conn):\n    return os.getpid(), conn.execute('SELECT 41 + 1').fetchone()[0]\n",
               "f")
    pid, answer = f(conn)
    assert pid == process_host.process.pid != os.getpid() and answer == 42


# -- refusals --------------------------------------------------------------------------------------------


ATTEMPTS = """
import psycopg
def attempts(conn, publish, rng):
    link = conn._link   # the answer's side of the channel: it can send any message it likes
    tried = {}
    def attempt(label, **fields):
        try:
            link._ask(fields)
            tried[label] = "allowed"
        except Exception as error:
            tried[label] = type(error).__name__ + ": " + str(error)[:80]
    for attribute in ("__class__", "info.__class__", "pgconn", "_pgconn", "adapters", "info._pgconn", "__dict__",
                      "cursor_factory"):
        attempt("get " + attribute, op="get", target=conn._boundary_id, name=attribute)
    for method in ("__init__", "__reduce__", "__getattribute__", "cursor", "notifies", "pipeline", None):
        attempt(f"call {method}", op="call", target=conn._boundary_id, method=method, args=[], kwargs={})
    attempt("set row_factory", op="set", target=conn._boundary_id, name="row_factory", value=None)
    attempt("set autocommit to a string", op="set", target=conn._boundary_id, name="autocommit", value="yes")
    attempt("publish's attribute", op="get", target=publish._boundary_id, name="__globals__")
    attempt("publish's method", op="call", target=publish._boundary_id, method="__reduce__", args=[], kwargs={})
    attempt("the rng's state", op="call", target=rng._boundary_id, method="getstate", args=[], kwargs={})
    attempt("an id never lent", op="call", target=10_000, method="execute", args=["SELECT 1"], kwargs={})
    attempt("a kwarg that is a dunder", op="call", target=conn._boundary_id, method="execute",
            args=["SELECT 1"], kwargs={"__class__": 1})
    attempt("an op that does not exist", op="import", target=conn._boundary_id, name="os")
    attempt("a lent object, sent back as a class", op="call", target=conn._boundary_id, method="execute",
            args=[{"$": "obj", "cls": "subprocess.Popen", "fields": {"args": "id"}}], kwargs={})
    return tried
"""


class _ForgingSide(AnswerSide):
    """An answer's side that replies to the cell with a tuple where its names go (as a forged frame did)."""

    forged = False

    def _serve(self, message: dict) -> dict:
        if message.get("op") == "cell" and not self.forged:
            self.forged = True
            return {"value": self.encoder.encode((1, "x", None))}
        return super()._serve(message)


def test_a_reply_of_the_wrong_shape_is_the_answers_failure_not_the_checks():
    ours, theirs = socket.socketpair()
    answer_side = _ForgingSide(Channel(theirs))
    answer_side.peer.start()
    trusted = TrustedSide(Channel(ours))
    host = AnswerHost(_Running(), trusted)
    try:
        with pytest.raises(LoadError, match="broke the grading protocol"):
            host.exercise("t.x", "x = 1", ["x"])
        assert define(host, "def f():\n    return 2\n", "f")() == 2  # and the channel goes on
    finally:
        trusted.peer.close()
        answer_side.peer.close()


def test_the_answer_gets_nothing_it_was_not_lent(pair, conn):
    tried = define(pair[0], ATTEMPTS, "attempts")(conn, lambda: None, random.Random(1))
    allowed = {name: outcome for name, outcome in tried.items() if outcome == "allowed"}
    assert not allowed, allowed
    assert all(outcome.startswith(("Refused", "TypeError", "WireError")) for outcome in tried.values()), tried


def test_a_lent_object_is_dead_once_its_call_returned(pair, conn):
    answers = define(pair[0], "def keep(conn):\n    global kept\n    kept = conn\n\n"
                              "def later():\n    return kept.execute('SELECT 1')\n", "keep", "later")
    answers["keep"](conn)
    with pytest.raises(Exception, match="no longer lent|nothing is lent") as raised:
        answers["later"]()  # the stored reference, used in another call
    assert isinstance(raised.value, PermissionError)


def test_an_object_that_says_it_equals_everything_arrives_as_opaque(pair):
    f = define(pair[0], """
class Anything:
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__
class Text(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__
def f():
    return Anything(), Text("no"), [Anything()]
""", "f")
    anything, text, listed = f()
    assert isinstance(anything, Opaque) and anything != anything.__class__ and anything != 1
    assert type(text) is str and text != "yes"
    assert listed != [1]


def test_no_class_but_the_allowed_ones_is_rebuilt(pair):
    host, side = pair
    decoder = host.side.decoder
    assert isinstance(decoder.decode({"$": "obj", "cls": "subprocess.Popen", "fields": {"args": "sh"}}), Opaque)
    assert isinstance(decoder.decode({"$": "obj", "cls": "course.infra.processes.Child", "fields": {}}), Opaque)
    error = decoder.decode({"$": "exc", "cls": "os.system", "args": ["touch /tmp/x"], "msg": "m"})
    assert type(error).__name__ == "system" and isinstance(error, RemoteError)
    with pytest.raises(wire.WireError):
        decoder.decode({"$": "enum", "cls": "signal.Signals", "v": 9})
    with pytest.raises(wire.WireError):
        decoder.decode({"$": "ref", "id": 1, "kind": "callable"})  # the answer cannot lend us anything


def test_a_system_exit_in_the_answer_is_an_ordinary_failure(pair):
    f = define(pair[0], "import sys\ndef f():\n    sys.exit(0)\n\ndef g():\n    raise KeyboardInterrupt\n", "f", "g")
    for name in ("f", "g"):
        with pytest.raises(Exception) as raised:
            f[name]()
        assert isinstance(raised.value, RemoteError) and type(raised.value).__name__ in ("SystemExit", "KeyboardInterrupt")


def test_a_broken_frame_ends_the_channel_and_the_checks_hear_it(tmp_path):
    ours, theirs = socket.socketpair()
    trusted = TrustedSide(Channel(ours))
    theirs.sendall(b"\x00\x00\x00\x05{nope")
    with pytest.raises(AnswerProcessGone, match="broke the protocol"):
        trusted.request("call", answer=["x", "y"], args=[], kwargs={})
    ours2, theirs2 = socket.socketpair()
    trusted2 = TrustedSide(Channel(ours2))
    theirs2.sendall(b"\xff\xff\xff\xff")  # 4 GB announced
    with pytest.raises(AnswerProcessGone, match="limit"):
        trusted2.request("call", answer=["x", "y"], args=[], kwargs={})


def test_deep_nesting_is_refused_not_a_crash(pair):
    deep: list = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(wire.WireError):
        pair[0].side.decoder.decode(deep)


def test_a_pickled_answer_starts_only_in_a_sandbox(pair, tmp_path):
    f = define(pair[0], "def f(job, conn):\n    return 1\n", "f")
    spec = processes.pickle_for_child({"handler": f}, "boundary-test")
    with pytest.raises(RuntimeError, match="outside any sandbox"):
        processes.python("boundary-test", "course.grading.faults.worker", str(spec))
    started = []
    processes.confine_untrusted(lambda argv, specs, **options: started.append(specs) or subprocess.Popen(
        [sys.executable, "-c", "pass"], **options))
    try:
        processes.python("boundary-test", "course.grading.faults.worker", str(spec)).wait(30)
    finally:
        processes.confine_untrusted(None)
    assert started == [[str(spec)]]


def test_a_handler_holding_a_lock_still_cannot_be_pickled(pair):
    f = define(pair[0], "import threading\nLOCK = threading.Lock()\ndef f(job, conn):\n    with LOCK:\n        return 1\n", "f")
    with pytest.raises(TypeError, match="lock"):
        processes.pickle_for_child(f, "boundary-test")


def test_the_answers_process_dying_is_heard(process_host):
    f = define(process_host, "import os\ndef f():\n    os._exit(7)\n", "f")
    with pytest.raises(AnswerProcessGone):
        f()
    assert process_host.process.wait(10) == 7


def test_many_calls_cross_at_once_with_the_same_results(pair):
    draw = define(pair[0], "def draw(n, rng):\n    if n < 0:\n        raise ValueError(n)\n    return rng.uniform(0, n)\n",
                  "draw")
    here = random.Random(3)
    assert draw.many([((4, random.Random(3)), {})] * 500) == [here.uniform(0, 4) for _ in range(500)]
    with pytest.raises(ValueError):
        draw.many([((1, random.Random(3)), {}), ((-1, random.Random(3)), {})])


def test_a_connection_pointed_at_other_tables_is_put_back_when_the_call_returns(pair, conn):
    """An answer that sets search_path to a schema of its own (a 'jobs' it filled as the check would want)
    cannot have the check read that after its call."""
    point = define(pair[0], "def point(conn):\n    conn.execute(\"SET search_path TO pg_catalog\")\n"
                            "    return conn.execute('SHOW search_path').fetchone()[0]\n", "point")
    before = conn.execute("SHOW search_path").fetchone()[0]
    assert point(conn) == "pg_catalog"
    assert conn.execute("SHOW search_path").fetchone()[0] == before


def test_a_temporary_jobs_and_session_settings_are_put_back_when_the_call_returns(pair, conn):
    """An answer that shadows the check's `jobs` with a temporary table (searched first), or leaves the
    connection read-only or with a 1 ms statement timeout: after its call the check reads its own table,
    with its own settings (a hostile class did each)."""
    conn.execute("INSERT INTO jobs (type, payload) VALUES ('t', '{}')")
    conn.execute("SET lock_timeout = '5s'")  # the check's own setting stays as it set it
    shadow = define(pair[0], """
def shadow(conn):
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS jobs (LIKE jobs INCLUDING ALL)")
    conn.execute("SET statement_timeout = '1ms'")
    conn.execute("SET default_transaction_read_only = on")
    conn.execute("SET lock_timeout = '1ms'")
    return conn.execute("SELECT count(*) FROM jobs").fetchone()[0]
""", "shadow")
    assert shadow(conn) == 0
    assert conn.execute("SELECT count(*) FROM jobs").fetchone()[0] == 1
    assert conn.execute("SHOW statement_timeout").fetchone()[0] == "0"
    assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "off"
    assert conn.execute("SHOW lock_timeout").fetchone()[0] == "5s"
    assert conn.execute("SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema()").fetchone()[0] == 0


def test_every_class_a_check_may_lend_exists():
    """A class renamed or moved leaves its EXPOSED entry naming nothing, and every check that lends it fails
    every answer, right ones too, behind the boundary (13.keep_alive did: its Task became the consumer loop's
    own, and `python -m course check 13` failed every handler with "cannot be lent")."""
    import importlib

    from course.grading.boundary.lending import EXPOSED

    for name in EXPOSED:
        module, _, qualname = name.rpartition(".")
        assert isinstance(getattr(importlib.import_module(module), qualname, None), type), name


DATACLASS_ANSWER = """
from dataclasses import dataclass, field

@dataclass(frozen=True)
class Outcome:
    job_id: int
    notes: list = field(default_factory=list)

def f(job_id):
    return Outcome(job_id).job_id + 1
"""


def test_an_answer_cell_that_defines_a_dataclass_loads_as_in_jupyter(process_host):
    """@dataclass looks its class's module up in sys.modules: the host runs cells as a registered module, as
    Jupyter's __main__ is (a correct 12.booking_worker with a dataclass failed to load: round f4, f4b12)."""
    assert define(process_host, DATACLASS_ANSWER, "f")(41) == 42


def test_a_magic_line_keeps_the_cells_line_numbers(pair):
    """A magic line is blanked, not removed: the line a traceback names is the line of the cell."""
    f = define(pair[0], "%load_ext something\n\ndef f():\n    raise ValueError('here')\n", "f")
    with pytest.raises(ValueError) as raised:
        f()
    assert raised.value.__boundary__.line == "line 4: raise ValueError('here')"


def test_what_lab_01s_notebook_calls_on_its_app_and_provider_an_answer_may_call_too():
    """01.lose_a_receipt lends the check's app and provider: whatever the lab itself shows the learner calling
    on them, an answer may call (round f4: an answer waiting on app.log_tail, as section 6 does, was refused)."""
    import re

    from course.grading import notebooks
    from course.grading.boundary.lending import EXPOSED

    source = notebooks.python_source(next(notebooks.SOLUTIONS.glob("01_*.ipynb")))
    for name, cls in (("app", "course.programs.checkout.CheckoutApp"),
                      ("provider", "course.programs.email_provider.EmailProvider")):
        exposed = EXPOSED[cls].methods | EXPOSED[cls].attributes
        used = set(re.findall(rf"\b{name}\.(\w+)", source))
        assert used <= exposed, f"{name}: {sorted(used - exposed)} shown in lab 01 but not lent"
