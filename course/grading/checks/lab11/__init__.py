"""Lab 11: watching the queue — how late each queue is, when to alert, and who holds back vacuum."""

from __future__ import annotations

import contextlib
import itertools
import random
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

import psycopg

from course.core import monitoring, queue
from course.programs import dead_rows

from course.grading import differential as diff
from course.grading.trial import Trial, short
from course.grading.checks import exercise_check
from course.grading.checks.quiz import Question, ask, multiple_choice
from course.grading.checks.lab11 import blockers_drawn
from course.grading.checks.lab11.waiting import _age, _numbers, _waiting_cases, waiting_differential

TOLERANCE_S = 5.0  # a check on a loaded machine takes a few seconds; ages are minutes apart


# -- 11.oldest_waiting ------------------------------------------------------------------------------------


@exercise_check("11.oldest_waiting")
def oldest_waiting(t: Trial, oldest_waiting, seed=None):
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
            seen = got.get(name)
            t.expect(f"{name}: left out — {situation}", ok=name not in got, got=seen, expected="absent",
                     example=situation, note="only jobs someone is waiting for count: this one is not due yet "
                                             "and has never run; leave the queue out of the dict (not 0)")
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
    waiting_differential(t, box, oldest_waiting, seed)


def _waiting_hint(name: str) -> str:
    return {
        "receipts": "measure from due_at (when the job was first due) to now(), and keep the oldest per queue",
        "emails": "a job waiting for its retry is still late: the customer has not had the email. It has "
                  "run_at in the future, but attempts > 0",
        "invoices": "a job that is running is still unfinished: count it (its run_at is the end of its lease)",
        "syncs": "a job whose lease ran out is due again, lease token or not: run_at <= now()",
        "wakeups": "count from due_at, when the job became due, not from created_at: the hour it was "
                   "enqueued ahead for is not lateness (run_at will not do either: it moves at every claim)",
    }.get(name, "")


# -- 11.alerts ------------------------------------------------------------------------------------------
#
# Differential: snapshots drawn from everything the statement allows (no queue, one, many; several late
# at once, ties, exactly at the limit and a hair either side, empty queues, deep queues that are not
# late, late queues with nothing ready, dead letters from one to thousands, dead tuples in the millions),
# the answer's messages read for what they are about (the queue each names, the count the others say)
# and compared with the reference's. Free: the wording and the order of the messages.

ALERTS_SEED = 11
ALERTS_SCENARIOS = 90  # pure Python: a few ms in all
LIMIT_S = monitoring.LATE_AFTER_S  # the statement's LIMIT_S: 120 s

A_STRINGS = "returns a list of strings, whatever the snapshot"
A_LATE = "each queue over 120 s raises one alert of its own that names it (several late queues: one each)"
A_BOUNDARY = "exactly 120 s is not over the limit: no alert (the boundary)"
A_CALM = "a queue at most 120 s behind raises none, however deep (depth is not lateness)"
A_DEAD = "dead letters raise one alert that says how many"
A_NO_DEAD = "no dead letters, no other alert (dead tuples are not dead letters)"
ALERT_CHECKS = (A_STRINGS, A_LATE, A_BOUNDARY, A_CALM, A_DEAD, A_NO_DEAD)

# Queue names no alert's wording contains by chance ("late", "dead", "jobs", "queue", "table" are not
# among them), none a part of another.
QUEUE_NAMES = ("receipts", "emails", "invoices", "syncs", "newsletter", "reminders", "wakeups", "welcomes",
               "exports", "payouts", "reviews", "refunds")
PLAIN_WAITS = (0.0, 5.0, 720.0, 121.0, 119.0, LIMIT_S)  # the shrinker's vocabulary, plainest first


@dataclass(frozen=True)
class Line:
    """One queue's line of a snapshot, as the dashboard shows it."""
    queue: str
    waiting_s: float
    ready: int = 1
    in_flight: int = 0
    scheduled: int = 0

    def told(self) -> str:
        depth = [f"{n:,} {what}" for n, what in ((self.ready, "ready"), (self.in_flight, "in flight"),
                                                 (self.scheduled, "scheduled")) if n]
        return f"{self.queue} ({', '.join(depth) or 'empty'}; oldest waited {self.waiting_s:g} s)"


@dataclass(frozen=True)
class Reading:
    """A scenario: one snapshot."""
    lines: tuple[Line, ...]
    dead_letters: int = 0
    dead_tuples: int = 0

    def snapshot(self) -> monitoring.Snapshot:
        views = tuple(monitoring.QueueView(l.queue, l.ready, l.in_flight, l.scheduled, l.waiting_s)
                      for l in self.lines)
        return monitoring.Snapshot(0.0, views, self.dead_letters, self.dead_tuples)

    def told(self) -> str:
        queues = "; ".join(l.told() for l in self.lines) if self.lines else "no queues at all"
        return f"{queues}; {self.dead_letters:,} dead letters, {self.dead_tuples:,} dead tuples"

    def shrinks(self) -> Iterator["Reading"]:
        n = len(self.lines)
        size = max(1, n // 2) if n else 0
        while size >= 1:
            for start in range(0, n, size):
                yield replace(self, lines=self.lines[:start] + self.lines[start + size:])
            size //= 2
        if self.dead_tuples:
            yield replace(self, dead_tuples=0)
        if self.dead_letters > 1:
            yield replace(self, dead_letters=3 if self.dead_letters > 3 else 1)
        for index, line in enumerate(self.lines):
            for simpler in (replace(line, in_flight=0, scheduled=0), replace(line, ready=1),
                            *(replace(line, waiting_s=w) for w in PLAIN_WAITS), replace(line, queue=_plainer_name(
                                line.queue, self.lines))):
                if _weight(simpler) < _weight(line):
                    yield replace(self, lines=self.lines[:index] + (simpler,) + self.lines[index + 1:])


def _weight(line: Line) -> tuple:
    rank = PLAIN_WAITS.index(line.waiting_s) if line.waiting_s in PLAIN_WAITS else len(PLAIN_WAITS)
    return (line.in_flight + line.scheduled, line.ready != 1, rank, QUEUE_NAMES.index(line.queue))


def _plainer_name(name: str, lines: tuple[Line, ...]) -> str:
    taken = {l.queue for l in lines}
    return next((n for n in QUEUE_NAMES if n not in taken and QUEUE_NAMES.index(n) < QUEUE_NAMES.index(name)), name)


def _wait(rng: random.Random) -> float:
    return rng.choice((0.0, 0.4, 1.5, 30.0, 59.9, 119.0, 119.5, 119.999, LIMIT_S, 120.001, 120.5, 121.0, 180.0,
                       300.0, 720.0, 3_600.0, 86_400.0 * 3))


def _depth(rng: random.Random) -> tuple[int, int, int]:
    return rng.choice(((0, 0, 0), (1, 0, 0), (12, 0, 0), (40, 2, 0), (10_000, 50, 0), (250_000, 0, 0), (0, 3, 0),
                       (0, 0, 4), (0, 1, 7), (3, 2, 1)))


def _lines(rng: random.Random, n: int, wait=_wait) -> tuple[Line, ...]:
    return tuple(Line(name, wait(rng), *_depth(rng)) for name in rng.sample(QUEUE_NAMES, n))


def _dead(rng: random.Random) -> tuple[int, int]:
    return (rng.choice((0, 0, 0, 1, 3, 12, 1_234, 100_000)),
            rng.choice((0, 0, 40, 99_999, 100_001, 250_000, 4_000_000)))


def _mixed(rng: random.Random) -> Reading:
    return Reading(_lines(rng, rng.randint(0, 8)), *_dead(rng))


def _several_late(rng: random.Random) -> Reading:
    """Two to seven late queues, often with the same age (ties), beside calm ones."""
    ages = [rng.choice((121.0, 300.0, 720.0, 720.0, 3_600.0)) for _ in range(3)]
    late = _lines(rng, rng.randint(2, 7), wait=lambda r: r.choice(ages))
    calm = tuple(Line(name, rng.choice((0.0, 5.0, 119.0)), *_depth(rng))
                 for name in rng.sample([n for n in QUEUE_NAMES if n not in {l.queue for l in late}], rng.randint(0, 3)))
    lines = list(late + calm)
    rng.shuffle(lines)
    return Reading(tuple(lines), *_dead(rng))


def _at_the_limit(rng: random.Random) -> Reading:
    edge = (119.0, 119.999, LIMIT_S, LIMIT_S, 120.001, 120.5, 121.0)
    return Reading(_lines(rng, rng.randint(1, 5), wait=lambda r: r.choice(edge)), *_dead(rng))


def _deep_or_empty(rng: random.Random) -> Reading:
    """Deep queues that are not late, late queues with nothing ready (in flight, or a retry scheduled),
    empty queues; or no queue at all."""
    if rng.random() < 0.2:
        return Reading((), *_dead(rng))
    lines = []
    for name in rng.sample(QUEUE_NAMES, rng.randint(1, 6)):
        lines.append(rng.choice((Line(name, rng.choice((2.0, 30.0, 119.0)), rng.choice((10_000, 250_000)), 40),
                                 Line(name, 0.0, 0, 0, 0),
                                 Line(name, rng.choice((300.0, 720.0)), 0, rng.randint(0, 2), rng.randint(1, 3)))))
    return Reading(tuple(lines), *_dead(rng))


def _dead_letters(rng: random.Random) -> Reading:
    return Reading(_lines(rng, rng.randint(0, 3)), rng.choice((1, 2, 3, 7, 12, 1_234, 100_000)),
                   rng.choice((0, 250_000, 4_000_000)))


ALERT_FAMILIES = (_mixed, _several_late, _at_the_limit, _deep_or_empty, _dead_letters)


def _names(message: str, queues: Iterator[str]) -> list[str]:
    """The queues a message names, in any case and any punctuation ("[RECEIPTS]", "receipts-queue")."""
    return [q for q in queues if q.casefold() in message.casefold()]


def _numbers_in(message: str) -> set[int]:
    """Every whole number a message says, with thousands separators or not ("1,234", "1 234", "1234")."""
    joined = re.sub(r"(?<=\d)[,_\u00a0\u202f ](?=\d{3}(?!\d))", "", message)
    return {int(n) for n in re.findall(r"\d+", joined)}


def _reference(reading: Reading) -> tuple[list[str], int]:
    """What the reference (course.core.monitoring, StayHub's rules) alerts on: the late queues, in order,
    and the dead-letter count it reports (0: no such alert)."""
    raised = monitoring.evaluate(reading.snapshot(), (monitoring.OldestJobOver(LIMIT_S), monitoring.DeadLetters()))
    queues = {l.queue for l in reading.lines}
    return [a.subject for a in raised if a.subject in queues], reading.dead_letters if any(
        a.subject == "dead letters" for a in raised) else 0


def _judge_alerts(reading: Reading, done) -> diff.Finding | None:
    if done.error is not None:
        return diff.Finding(A_STRINGS, got=f"your code raised {done.error}", expected="a list of strings",
                            note="every snapshot the dashboard can show is one to answer: no queues, empty queues, "
                                 "no dead letters")
    got = done.value
    if not (isinstance(got, list) and all(isinstance(m, str) for m in got)):
        return diff.Finding(A_STRINGS, got=short(got), expected="a list of strings (the messages)")
    names = [l.queue for l in reading.lines]
    about = [_names(m, names) for m in got]
    late_queues, dead_letters = _reference(reading)
    late = [l for l in reading.lines if l.queue in late_queues]
    for line in late:
        naming = [m for m, named in zip(got, about) if line.queue in named]
        if len(naming) != 1 or len(_names(naming[0], names)) != 1:
            return diff.Finding(A_LATE, got=short(got), expected=f"one alert naming {line.queue} "
                                f"(and one for each of {', '.join(l.queue for l in late)})" if len(late) > 1 else
                                f"one alert naming {line.queue}", note=_late_note(naming, late))
    calm = {l.queue: l for l in reading.lines if l.queue not in late_queues}
    wrong = [calm[q] for named in about for q in named if q in calm]
    if wrong:
        under = [l for l in wrong if l.waiting_s < LIMIT_S]
        if not under:
            return diff.Finding(A_BOUNDARY, got=short(got), expected=f"no alert naming {wrong[0].queue}",
                                note="alert when the oldest job is *over* LIMIT_S: waiting_s > LIMIT_S, not >=")
        return diff.Finding(A_CALM, got=short(got), expected=f"no alert naming {under[0].queue}",
                            note=f"{under[0].queue}'s oldest job has waited {under[0].waiting_s:g} s, not over "
                                 f"{LIMIT_S:g} s: alert on how long the oldest job has waited (in seconds), not on "
                                 "how many jobs there are" + (", nor on jobs in flight or waiting for a retry with "
                                                              "none ready" if not under[0].ready else ""))
    others = [m for m, named in zip(got, about) if not named]
    if dead_letters:
        saying = [m for m in others if dead_letters in _numbers_in(m)]
        if len(others) != 1 or not saying:
            return diff.Finding(A_DEAD, got=short(others), expected=f"one alert, besides the queues', that says "
                                f"{dead_letters:,}", note="one alert for the dead-letter table, with its count"
                                ": not one per dead job, not none")
    elif others:
        return diff.Finding(A_NO_DEAD, got=short(others), expected="no alert but the late queues'",
                            note="dead_tuples counts row versions vacuum has not removed; dead_letters counts jobs "
                                 "that gave up: only dead_letters > 0 is an alert")
    return None


def _late_note(naming: list[str], late: list[Line]) -> str:
    if not naming:
        return ("every queue whose oldest job has waited over LIMIT_S seconds gets its own message, not only the "
                "worst: loop over snapshot.queues" if len(late) > 1 else
                "a queue whose oldest job has waited over LIMIT_S seconds (waiting_s, in seconds) raises an alert, "
                "however few jobs it holds, ready or not")
    return "one message per late queue, each naming its queue (view.queue): not one for all, not two for one"


@exercise_check("11.alerts")
def alerts(t: Trial, alerts, seed=None):
    t.seed = ALERTS_SEED if seed is None else seed
    verdicts = diff.Verdicts(t, ALERT_CHECKS)

    def compare(reading: Reading) -> diff.Finding | None:
        finding = _judge_alerts(reading, t.attempt(alerts, reading.snapshot()))
        if finding is not None and finding.check == A_BOUNDARY:
            # the cause, by experiment: the same queue a second under the limit; alerted on still, it is not
            # the boundary the answer gets wrong but what else it looks at (its depth, its retries)
            queue = finding.expected.removeprefix("no alert naming ")
            under = replace(reading, lines=tuple(replace(l, waiting_s=LIMIT_S - 1.0) if l.queue == queue else l
                                                 for l in reading.lines))
            again = _judge_alerts(under, t.attempt(alerts, under.snapshot()))
            if again is not None and again.check == A_CALM:
                return replace(finding, check=A_CALM, note=f"{queue} is alerted on even at {LIMIT_S - 1:g} s, under "
                               "the limit: a queue's alert comes from its oldest job's wait alone (waiting_s > "
                               "LIMIT_S), not from how many jobs it holds, ready, in flight or waiting for a retry")
        return finding

    diff.search(verdicts, diff.in_turn(ALERT_FAMILIES), compare, seed=t.seed, count=ALERTS_SCENARIOS)
    verdicts.report()


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
def vacuum_blockers(t: Trial, vacuum_blockers, seed=None):
    t.seed = blockers_drawn.DRAWN_SEED if seed is None else seed
    box = t.scratch()
    box.conn.execute("CREATE TABLE notes (n int)")
    sessions = _Sessions(box.conninfo)
    try:
        # Connected in another order than their transactions begin: pids (and pg_stat_activity's own order)
        # are not the transactions' age.
        writer = sessions.open(name="forgotten-psql")  # READ COMMITTED, wrote a row, then went to lunch
        report = sessions.open(name="monthly-report")  # REPEATABLE READ: one snapshot for the whole transaction
        report.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        report.execute("SELECT count(*) FROM notes")
        time.sleep(0.05)
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
        t.require("returns a list of pids (whole numbers)", ok=isinstance(got, list) and all(
            isinstance(item, int) and not isinstance(item, bool) for item in got), got=short(got),
            example="vacuum_blockers(conn, 1.0)", note="return the pids only, e.g. [4120, 4133]: not rows, not "
                                                      "(pid, age) pairs")
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
        blockers = {pid: name for pid, name in names.items()
                    if name in ("monthly-report", "forgotten-psql", "slow-export")}
        _to_the_fraction_of_a_second(t, box.conn, blockers, vacuum_blockers)
        _leaves_out_its_own_session(t, sessions, vacuum_blockers)
        rng = random.Random(t.seed)
        arrangement, minutes = blockers_drawn.draw(rng), blockers_drawn.zone(rng)
        [caller_name] = box.conn.execute("SELECT current_setting('application_name')").fetchone()
        names = blockers_drawn.open_arrangement(sessions, arrangement, _another_database(box.conn), caller_name)
        blockers_drawn.judge(t, box.conn, names, vacuum_blockers, _pid_of, minutes)
    finally:
        sessions.close()


FRACTION = "uses older_than_s to the fraction of a second: a transaction 2.3 s old is older than 2.05 s"


def _to_the_fraction_of_a_second(t: Trial, conn: psycopg.Connection, blockers: dict[int, str], vacuum_blockers) -> None:
    """A threshold between whole seconds, just under a blocker's age (a red team's answer compared whole
    seconds, the age rounded and older_than_s cut: 1.4 s was not older than 1.2 s). In one transaction, where
    now() and pg_stat_activity stand still, so the reference's list is exact: a blocker whose age's fraction is
    at least 0.1 s and under 0.5 s (rounding the age gives its whole seconds) and a threshold 0.05 s past them.
    The threshold is below every age it decides, so an answer that reads the clock lists the same."""
    for _ in range(12):  # the ages' fractions move with the clock: a few looks find one in range
        conn.execute("BEGIN")
        try:
            ages = dict(conn.execute("SELECT pid, extract(epoch FROM now() - xact_start)::float8 FROM pg_stat_activity "
                                     "WHERE pid = ANY(%s) AND xact_start IS NOT NULL", [list(blockers)]).fetchall())
            fits = sorted(age for age in ages.values() if 0.1 <= age % 1 < 0.45 and age >= 1)
            if fits:
                threshold = int(fits[0]) + 0.05
                got = t.call(vacuum_blockers, conn, threshold, during=f"vacuum_blockers(conn, {threshold})")
                # A clock-reading answer may list one whose age reached the threshold while it ran (round f2)
                [late] = conn.execute("SELECT extract(epoch FROM clock_timestamp() - now())::float8").fetchone()
                either = {blockers[pid] for pid, age in ages.items() if age <= threshold < age + late}
                expected = [blockers[b.pid] for b in dead_rows.vacuum_blockers(conn, threshold)
                            if b.pid in blockers and blockers[b.pid] not in either]
                ours = [blockers[p] for p in (_pid_of(item) for item in got or [])
                        if p in blockers and blockers[p] not in either]
                told = ", ".join(f"{blockers[pid]} {age:.2f} s" for pid, age in sorted(ages.items(), key=lambda a: -a[1]))
                t.expect(FRACTION, ok=sorted(ours) == sorted(expected), got=ours, expected=expected,
                         example=f"vacuum_blockers(conn, {threshold}) with transactions open {told}",
                         note="compare the transaction's age in seconds with older_than_s as they are, fractions and "
                              "all: xact_start < now() - make_interval(secs => older_than_s); rounding either one "
                              "to whole seconds moves the line" if sorted(ours) != sorted(expected) else None)
                return
        finally:
            conn.execute("ROLLBACK")
        time.sleep(0.15)
    t.expect(FRACTION, ok=True, got="not tried: no transaction's age fell between 0.1 and 0.45 s past a whole second")


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
    if not listed:  # older than 0 s: by now() the caller's own transaction is exactly 0 s old, not older
        got = t.call(vacuum_blockers, own, 0, during="vacuum_blockers(conn, 0) in a transaction open 1.2 s on conn")
        listed = own.info.backend_pid in [_pid_of(item) for item in got or []]
    t.expect("leaves out your own session (pg_backend_pid())", ok=not listed,
             got="your own session is listed" if listed else "not listed", expected="not listed",
             example="vacuum_blockers(conn, 1.0) called in a transaction that has been open on conn for 1.2 s",
             note="the session running the query is not one to chase: pid <> pg_backend_pid()" if listed else None)


# -- 11.quiz ------------------------------------------------------------------------------------------------


@exercise_check("11.predict_alerts")
def predict_alerts_check(t: Trial, predict_alerts):
    ask(t, "predict_alerts", predict_alerts, "b",
        "which queue raises the lateness alert, and when the dead-letter alert fires",
        "look at what the run measured: which queue's oldest job crossed the limit, and when did the 422 come back?")


@exercise_check("11.predict_dead_rows")
def predict_dead_rows_check(t: Trial, predict_dead_rows):
    ask(t, "predict_dead_rows", predict_dead_rows, "a",
        "what the dead tuples and a claim's pages do while one idle session holds a snapshot",
        "look at what the run measured: the dead tuples and the pages per claim in each phase")


@exercise_check("11.predict_wal")
def predict_wal_check(t: Trial, predict_wal):
    ask(t, "predict_wal", predict_wal, "c",
        "how much WAL a job's claim and ack write under a lease, against the row lock's",
        "look at the records a job in section 8's table: what does the claim's UPDATE add to the lock and the delete?")


quiz = multiple_choice(
    "11.quiz",
    q1=Question("b", "which alert pages someone during Tiffin's bad evening",
                "which number says how long a customer has been waiting?"),
    q2=Question("b", "how far behind 4,000 receipts are at 50 senders and 9 s an email",
                "Little's law: the workers finish 50 / 9 emails a second; the last one waits depth / throughput"),
    q3=Question("c", "what to look for first when dead tuples climb and the claim slows",
                "what stops VACUUM from removing a row version that every running transaction has stopped needing?"),
    q4=Question("b", "whether a job waiting for its retry counts as late",
                "has the customer had their receipt yet?"),
    q5=Question("b", "a deploy's ALTER TABLE while a reader sits idle in its transaction",
                "look at section 7's schedule: who waited for whom, and what did the idle reader still hold?"),
)
