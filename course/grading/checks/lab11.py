"""Lab 11: watching the queue — how late each queue is, when to alert, and who holds back vacuum."""

from __future__ import annotations

import contextlib
import threading
import time

import psycopg

from course.core import monitoring, queue

from course.grading.trial import Trial, short
from course.grading.checks import exercise_check
from course.grading.checks.quiz import ask

TOLERANCE_S = 5.0  # a check on a loaded machine takes a few seconds; ages are minutes apart


# -- 11.oldest_waiting ------------------------------------------------------------------------------------


def _age(conn, job_id: int, seconds: float) -> None:
    """Pretend the job was enqueued, and due, `seconds` ago (the only way to test minutes of waiting in a second)."""
    conn.execute("UPDATE jobs SET created_at = now() - make_interval(secs => %(s)s), "
                 "due_at = now() - make_interval(secs => %(s)s) WHERE id = %(id)s", {"s": seconds, "id": job_id})


def _let_pass(conn, job_id: int, seconds: float) -> None:
    """Pretend `seconds` went by for the job: every moment stored for it moves back by as much."""
    conn.execute("UPDATE jobs SET created_at = created_at - make_interval(secs => %(s)s), "
                 "run_at = run_at - make_interval(secs => %(s)s), due_at = due_at - make_interval(secs => %(s)s) "
                 "WHERE id = %(id)s", {"s": seconds, "id": job_id})


def _waiting_cases(conn) -> list[tuple[str, str, float | None]]:
    """Build one queue per situation; return (queue, what it shows, expected seconds or None = absent)."""
    young = queue.enqueue(conn, "send_receipt", {"order_id": 2}, queue="receipts")
    old = queue.enqueue(conn, "send_receipt", {"order_id": 1}, queue="receipts")
    _age(conn, old, 720)
    _age(conn, young, 5)

    retrying = queue.enqueue(conn, "send_email", {"booking_id": 981}, queue="emails")
    [job] = queue.claim(conn, "emails", lease_s=30)
    queue.fail(conn, job, "HTTP 503 from the provider", backoff=lambda attempt: 60.0)  # back in 60 s
    _age(conn, retrying, 300)

    later = queue.enqueue(conn, "send_reminder", {"booking_id": 982}, queue="reminders", delay_s=3600)
    _age(conn, later, 600)

    running = queue.enqueue(conn, "render_invoice", {"booking_id": 983}, queue="invoices")
    queue.claim(conn, "invoices", lease_s=30)
    _age(conn, running, 200)

    planned = queue.enqueue(conn, "send_wakeup_call", {"booking_id": 985}, queue="wakeups", delay_s=3600)
    _let_pass(conn, planned, 3630)  # enqueued an hour and a half minute ago, for an hour later: due 30 s ago

    abandoned = queue.enqueue(conn, "sync_channel_manager", {"booking_id": 984}, queue="syncs")
    queue.claim(conn, "syncs", lease_s=0.01)  # its worker "dies": the lease runs out at once
    time.sleep(0.05)
    _age(conn, abandoned, 400)
    return [
        ("receipts", "two waiting jobs, enqueued 720 s and 5 s ago: the oldest counts", 720.0),
        ("emails", "a job waiting for its retry (failed once, back in 60 s), enqueued 300 s ago", 300.0),
        ("invoices", "a job running right now (lease held), enqueued 200 s ago", 200.0),
        ("syncs", "a job whose worker died (lease ran out), enqueued 400 s ago", 400.0),
        ("wakeups", "a wake-up call enqueued 3,630 s ago with delay_s=3600: due 30 s ago, so 30 s late", 30.0),
        ("reminders", "a reminder scheduled for an hour from now, never run yet: nobody waits for it", None),
    ]


def _numbers(value) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool) for k, v in value.items())


@exercise_check("11.oldest_waiting")
def oldest_waiting(t: Trial, oldest_waiting):
    box = t.scratch()
    empty = t.call(oldest_waiting, box.conn, during="oldest_waiting(conn) on an empty jobs table")
    t.require("returns a dict (queue name -> seconds)", ok=isinstance(empty, dict), got=empty,
              example="oldest_waiting(conn) with no jobs at all: {}")
    t.expect("an empty jobs table gives {}", got=empty, expected={}, example="no jobs")
    cases = _waiting_cases(box.conn)
    got = t.call(oldest_waiting, box.conn, during="oldest_waiting(conn) on six queues")
    t.require("returns a dict of queue name -> seconds (numbers)", ok=_numbers(got), got=got,
              example="{'receipts': 720.0, ...}")
    for name, situation, expected in cases:
        if expected is None:
            seen = got.get(name, 0)
            t.expect(f"{name}: left out (or 0) — {situation}", ok=not seen, got=seen, expected="absent or 0",
                     example=situation, note="only jobs someone is waiting for count: this one is not due yet "
                                             "and has never run")
        else:
            seen = got.get(name)
            ok = seen is not None and abs(seen - expected) <= TOLERANCE_S
            t.expect(f"{name}: about {expected:.0f} s — {situation}", ok=ok, got=seen,
                     expected=f"{expected:.0f} s (± {TOLERANCE_S:.0f})", example=situation,
                     note=_waiting_hint(name) if not ok else None)

    # The boundary: a job due exactly now (run_at = now(), in the call's own transaction, where now()
    # stands still), never tried, enqueued 90 s ago: someone waits for it.
    with box.conn.transaction(force_rollback=True):
        due = queue.enqueue(box.conn, "send_welcome", {"guest_id": 7}, queue="welcomes")
        box.conn.execute("UPDATE jobs SET run_at = now() WHERE id = %s", [due])
        _age(box.conn, due, 90)
        got = t.call(oldest_waiting, box.conn, during="oldest_waiting(conn) with a job whose run_at is exactly now()")
    seen = got.get("welcomes") if isinstance(got, dict) else None
    t.expect("welcomes: about 90 s — a job due exactly now (run_at = now(), the boundary), enqueued 90 s ago",
             ok=seen is not None and abs(seen - 90) <= TOLERANCE_S, got=seen, expected=f"90 s (± {TOLERANCE_S:.0f})",
             example="one job in 'welcomes', run_at = now() in the same transaction as the call",
             note="due means run_at <= now(), not <" if not seen else None)


def _waiting_hint(name: str) -> str:
    return {
        "receipts": "measure from due_at (when the job was first due) to now(), and keep the oldest per queue",
        "emails": "a job waiting for its retry is still late: the customer has not had the email. It has "
                  "run_at in the future, but attempts > 0",
        "invoices": "a job that is running is still unfinished: count it (its run_at is the end of its lease)",
        "syncs": "a job whose lease ran out is due again, lease or not: run_at <= now()",
        "wakeups": "count from due_at, when the job became due, not from created_at: the hour it was "
                   "enqueued ahead for is not lateness (run_at will not do either: it moves at every claim)",
    }.get(name, "")


# -- 11.alerts ------------------------------------------------------------------------------------------


def _snap(*queues: tuple[str, int, float], dead_letters: int = 0, dead_tuples: int = 0) -> monitoring.Snapshot:
    views = tuple(monitoring.QueueView(name, ready, 0, 0, waiting) for name, ready, waiting in queues)
    return monitoring.Snapshot(0.0, views, dead_letters, dead_tuples)


def _mentions(alerts: list, word: str) -> int:
    return sum(word in a for a in alerts)


@exercise_check("11.alerts")
def alerts(t: Trial, alerts):
    def run(snap, during):
        got = t.call(alerts, snap, during=during)
        t.require("returns a list of strings", ok=isinstance(got, list) and all(isinstance(a, str) for a in got),
                  got=got, example=during)
        return got

    calm = _snap(("receipts", 12, 1.5), ("newsletter", 300, 4.0))
    got = run(calm, "alerts(snapshot) when every queue is a few seconds behind")
    t.expect("a calm snapshot raises no alert", got=got, expected=[], example="receipts 12 jobs, 1.5 s; newsletter "
                                                                               "300 jobs, 4 s; no dead letters")

    burst = _snap(("newsletter", 10_000, 30.0), ("receipts", 40, 720.0))
    got = run(burst, "alerts(snapshot): 10,000 newsletter jobs 30 s behind, 40 receipts 12 minutes behind")
    t.expect("the receipts, 12 minutes behind, raise one alert that names the queue",
             ok=len(got) == 1 and _mentions(got, "receipts") == 1, got=got,
             expected="one alert mentioning 'receipts'", example="newsletter 10,000 jobs / 30 s; receipts 40 jobs / 720 s")
    t.expect("10,000 newsletter jobs only 30 s behind raise none (depth is not lateness)",
             ok=_mentions(got, "newsletter") == 0, got=got, expected="no alert mentioning 'newsletter'",
             example="newsletter 10,000 jobs, oldest 30 s old", note="alert on how long the oldest job has waited "
             "(over 120 s), not on how many there are, and not in minutes")

    edge = _snap(("syncs", 1, 121.0), ("emails", 5, 119.0))
    got = run(edge, "alerts(snapshot): syncs 121 s behind, emails 119 s behind")
    t.expect("the limit is 2 minutes: 121 s alerts, 119 s does not",
             ok=_mentions(got, "syncs") == 1 and _mentions(got, "emails") == 0 and len(got) == 1, got=got,
             expected="one alert, for 'syncs'", example="syncs 121 s, emails 119 s")
    exactly = _snap(("invoices", 2, 120.0))
    got = run(exactly, "alerts(snapshot): invoices exactly 120 s behind")
    t.expect("exactly 120 s is not over the limit: no alert (the boundary)", got=got, expected=[],
             example="invoices 2 jobs, oldest exactly 120 s old", note="alert when the oldest job is *over* "
             "LIMIT_S: waiting_s > LIMIT_S, not >=")

    dead = _snap(("receipts", 3, 2.0), dead_letters=3)
    got = run(dead, "alerts(snapshot) with 3 jobs in the dead-letter table")
    t.expect("3 dead letters raise one alert that says how many", ok=len(got) == 1 and _mentions(got, "3") == 1,
             got=got, expected="one alert mentioning 3", example="3 dead letters, queues calm",
             note="one alert for the table, with the count: not one per dead job")

    not_dead = _snap(("receipts", 3, 2.0), dead_tuples=250_000)
    got = run(not_dead, "alerts(snapshot) with 250,000 dead tuples and no dead letters")
    t.expect("dead tuples are not dead letters: no alert from these two conditions", got=got, expected=[],
             example="dead_tuples=250,000, dead_letters=0",
             note="dead_tuples counts row versions vacuum has not removed; dead_letters counts jobs that gave up")

    both = _snap(("receipts", 40, 720.0), ("emails", 2, 1.0), dead_letters=1)
    got = run(both, "alerts(snapshot): receipts 12 minutes behind and 1 dead letter")
    t.expect("both conditions at once: two alerts", ok=len(got) == 2, got=got, expected="2 alerts",
             example="receipts 720 s behind, 1 dead letter")

    box = t.scratch()
    queue.enqueue_many(box.conn, "send_newsletter", [{"guest_id": n} for n in range(10_000)], queue="newsletter")
    late = queue.enqueue_many(box.conn, "send_receipt", [{"order_id": n} for n in range(3)], queue="receipts")
    box.conn.execute("UPDATE jobs SET created_at = now() - interval '12 minutes', due_at = now() - interval '12 minutes' "
                     "WHERE id = ANY(%s)", [late])
    real = monitoring.snapshot(box.conn)
    got = run(real, "alerts(monitoring.snapshot(conn)) on a real jobs table")
    t.expect("on a real snapshot (10,000 fresh newsletter jobs, 3 receipts 12 minutes old): one alert, receipts",
             ok=len(got) == 1 and _mentions(got, "receipts") == 1, got=got, expected="one alert mentioning 'receipts'",
             example=f"monitoring.snapshot(conn) = {short(real)}")


# -- 11.vacuum_blockers -----------------------------------------------------------------------------------


def _pid_of(item):
    """Accept pids as asked, and be kind to rows that carry one (a tuple, a dict, an object)."""
    if isinstance(item, int) and not isinstance(item, bool):
        return item
    if isinstance(item, dict):
        return item.get("pid")
    if isinstance(item, (tuple, list)) and item:
        return item[0]
    return getattr(item, "pid", None)


class _Sessions:
    """The sessions a check opens on purpose, each closed at the end whatever happens."""

    def __init__(self, conninfo: str):
        self.conninfo = conninfo
        self.conns: list[psycopg.Connection] = []
        self.threads: list[threading.Thread] = []

    def open(self, *, autocommit: bool = False, name: str, dbname: str | None = None) -> psycopg.Connection:
        conninfo = self.conninfo if dbname is None else psycopg.conninfo.make_conninfo(self.conninfo, dbname=dbname)
        conn = psycopg.connect(conninfo, autocommit=autocommit, application_name=name, connect_timeout=5)
        self.conns.append(conn)
        return conn

    def busy(self, seconds: float, name: str) -> int:
        """A session running one long query (in a thread of ours); returns its pid."""
        conn = self.open(autocommit=True, name=name)
        pid = conn.info.backend_pid

        def sleep():
            with contextlib.suppress(psycopg.Error):
                conn.execute("SELECT pg_sleep(%s)", [seconds])

        thread = threading.Thread(target=sleep, daemon=True)
        thread.start()
        self.threads.append(thread)
        return pid

    def close(self) -> None:
        with psycopg.connect(self.conninfo, autocommit=True) as admin:
            for conn in self.conns:
                with contextlib.suppress(psycopg.Error):
                    admin.execute("SELECT pg_cancel_backend(%s)", [conn.info.backend_pid])
        for thread in self.threads:
            thread.join(timeout=5)
        for conn in self.conns:
            with contextlib.suppress(psycopg.Error):
                conn.rollback()
            conn.close()


@exercise_check("11.vacuum_blockers")
def vacuum_blockers(t: Trial, vacuum_blockers):
    box = t.scratch()
    box.conn.execute("CREATE TABLE notes (n int)")
    sessions = _Sessions(box.conninfo)
    try:
        report = sessions.open(name="monthly-report")  # REPEATABLE READ: one snapshot for the whole transaction
        report.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        report.execute("SELECT count(*) FROM notes")
        time.sleep(0.05)
        writer = sessions.open(name="forgotten-psql")  # READ COMMITTED, wrote a row, then went to lunch
        writer.execute("INSERT INTO notes VALUES (1)")
        time.sleep(0.05)
        long_query = sessions.busy(8.0, "slow-export")
        reader = sessions.open(name="idle-reader")  # idle in transaction, but holds nothing: no snapshot, no write
        reader.execute("SELECT 1")
        idle = sessions.open(autocommit=True, name="idle-pool-connection")
        idle.execute("SELECT 1")
        elsewhere = sessions.open(name="other-database", dbname=_another_database(box.conn))  # old, with a snapshot
        elsewhere.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        elsewhere.execute("SELECT 1")
        time.sleep(1.6)
        report.execute("SELECT count(*) FROM notes")  # a fresh query, the same old transaction
        young = sessions.open(name="fresh-transaction")
        young.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        young.execute("SELECT 1")
        got = t.call(vacuum_blockers, box.conn, 1.0, during="vacuum_blockers(conn, older_than_s=1.0)")
        t.require("returns a list", ok=isinstance(got, list), got=got, example="vacuum_blockers(conn, 1.0)")
        pids = [_pid_of(item) for item in got]
        names = {report.info.backend_pid: "monthly-report", writer.info.backend_pid: "forgotten-psql",
                 long_query: "slow-export", reader.info.backend_pid: "idle-reader",
                 idle.info.backend_pid: "idle-pool-connection", young.info.backend_pid: "fresh-transaction",
                 elsewhere.info.backend_pid: "other-database"}
        ours = [names[p] for p in pids if p in names]  # other sessions on a shared server are not judged
        example = ("sessions opened ~1.7 s ago: a REPEATABLE READ report that just ran another query, a psql that "
                   "wrote a row, a 8-second query; plus an idle-in-transaction reader, an idle connection, "
                   "a transaction opened just now")
        for name, why in (("monthly-report", "its snapshot is as old as its transaction (query_start is recent: "
                                             "use xact_start)"),
                          ("forgotten-psql", "it wrote a row: its transaction id (backend_xid) holds back vacuum "
                                             "even without a snapshot"),
                          ("slow-export", "a long query holds a snapshot too, while it runs (state 'active')")):
            t.expect(f"lists {name}", ok=name in ours, got=ours, expected=f"{name} among them", example=example,
                     note=why)
        for name, why in (("idle-reader", "idle in transaction, but READ COMMITTED and read-only: between "
                                          "statements it holds no snapshot and no transaction id"),
                          ("idle-pool-connection", "not in a transaction at all"),
                          ("fresh-transaction", "younger than older_than_s"),
                          ("other-database", "a session of another database, whatever it holds: datname = "
                                             "current_database()")):
            t.expect(f"leaves out {name}", ok=name not in ours, got=ours, expected=f"no {name}", example=example,
                     note=why)
        order = [n for n in ours if n in ("monthly-report", "forgotten-psql", "slow-export")]
        t.expect("oldest transaction first", got=order, expected=["monthly-report", "forgotten-psql", "slow-export"],
                 example="the report started first, then the psql session, then the export")
        # Another threshold, unlike the demo's: every one of these transactions is a few seconds old.
        got = t.call(vacuum_blockers, box.conn, 600.0, during="vacuum_blockers(conn, older_than_s=600.0)")
        ours = [names[p] for p in (_pid_of(item) for item in got or []) if p in names]
        t.expect("uses older_than_s: with 600 s, none of these few-seconds-old transactions is listed", got=ours,
                 expected=[], example="the same sessions, vacuum_blockers(conn, 600.0)",
                 note="compare xact_start with now() - make_interval(secs => older_than_s), the argument you are "
                      "given, not a number written in the query" if ours else None)
        _leaves_out_its_own_session(t, sessions, vacuum_blockers)
    finally:
        sessions.close()


def _another_database(conn) -> str:
    """A database of the same server that is not the one the check runs in (both always exist)."""
    return "template1" if conn.info.dbname == "postgres" else "postgres"


def _leaves_out_its_own_session(t: Trial, sessions: _Sessions, vacuum_blockers) -> None:
    """Called on a connection whose transaction has been open longer than older_than_s: the caller's own
    session holds a snapshot while the query runs, and by the clock it is old enough. (Compared with
    now(), the transaction's start, it never is: only an answer that reads the clock can list itself.)"""
    own = sessions.open(name="your-session")
    own.execute("SELECT 1")  # the transaction starts here
    time.sleep(1.2)
    got = t.call(vacuum_blockers, own, 1.0, during="vacuum_blockers(conn, 1.0) in a transaction open 1.2 s on conn")
    listed = own.info.backend_pid in [_pid_of(item) for item in got or []]
    t.expect("leaves out your own session (pg_backend_pid())", ok=not listed,
             got="your own session is listed" if listed else "not listed", expected="not listed",
             example="vacuum_blockers(conn, 1.0) called in a transaction that has been open on conn for 1.2 s",
             note="the session running the query is not one to chase: pid <> pg_backend_pid()" if listed else None)


# -- 11.quiz ------------------------------------------------------------------------------------------------


@exercise_check("11.quiz")
def quiz(t: Trial, q1, q2, q3, q4):
    ask(t, "q1", q1, "b", "which alert pages someone during Tiffin's bad evening",
        "which number says how long a customer has been waiting?")
    ask(t, "q2", q2, "b", "how far behind 4,000 receipts are at 50 senders and 9 s an email",
        "Little's law: the workers finish 50 / 9 emails a second; the last one waits depth / throughput")
    ask(t, "q3", q3, "c", "what to look for first when dead tuples climb and the claim slows",
        "what stops VACUUM from removing a row version that every running transaction has stopped needing?")
    ask(t, "q4", q4, "b", "whether a job waiting for its retry counts as late",
        "has the customer had their receipt yet?")
