"""11.vacuum_blockers on sessions drawn at random: which hold a snapshot or a write, how old their
transaction is, idle, running a query or waiting for a lock, in this database or another, named like the
caller's connection or not. One seeded arrangement is opened for real, then judged at a threshold just under
each of its ages (so every session is tried on both sides of the line) and again at the fixed stage's 1.0 s
(the same arguments on other sessions), inside one transaction where now() and pg_stat_activity stand
still, beside the reference, with the answer's local clock at a drawn zone off UTC."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from dataclasses import dataclass

import psycopg

from course.programs import dead_rows
from course.grading.trial import Trial
from course.grading.checks.lab11.waiting import ZONES_MIN, local_zone, zone_told

DRAWN = ("finds what the reference finds, oldest first, among sessions drawn at random (which hold a snapshot or a "
         "write, how old, idle, running a query or waiting for a lock, in this database or another)")
DRAWN_SEED = 11
STEP_S = 0.5  # between two transactions' starts: ages a whole step apart, whatever the machine's load
STEPS = 3


@dataclass(frozen=True)
class Kind:
    told: str
    blocks: bool  # holds back vacuum (the reference's rule), told for the learner's example only


KINDS = {
    "rr-reader": Kind("a REPEATABLE READ transaction that read a row, idle since (a snapshot)", True),
    "rc-writer": Kind("a READ COMMITTED transaction that wrote a row, idle since (a transaction id)", True),
    "rr-writer": Kind("a REPEATABLE READ transaction that read and wrote, idle since (both)", True),
    "long-query": Kind("a query running for seconds (state 'active': a snapshot while it runs)", True),
    "monitor": Kind("a REPEATABLE READ monitoring session that read pg_stat_activity, idle since (a snapshot)", True),
    "lock-waiter": Kind("a REPEATABLE READ transaction that read a row, then waits for a lock another session holds "
                        "(a snapshot: waiting for a lock, it still holds back vacuum)", True),
    "rc-reader": Kind("a READ COMMITTED transaction that only read, idle in transaction (holds neither)", False),
    "idle": Kind("a connection in no transaction at all (state 'idle')", False),
    "other-db": Kind("a REPEATABLE READ transaction of another database (a snapshot, not ours to chase)", False),
}
# Not drawn on its own: opened just before each lock-waiter, holding the lock it waits for.
HOLDER = Kind("a READ COMMITTED transaction holding a lock, idle since (holds neither)", False)
SHARED = "under your connection's own application_name"  # a pool's connections share one name
FIXED_THRESHOLD_S = 1.0  # the fixed stage's first call: asked again here, the sessions changed since


@dataclass(frozen=True)
class Drawn:
    kind: str
    step: int  # its transaction starts at this step
    shared: bool  # connects under the caller's application_name, not a name of its own


def draw(rng: random.Random) -> list[Drawn]:
    """Every kind once, and up to two of them twice, in a drawn order of connection and of transactions' starts
    (several at one step, any kind oldest), about half of them named like the caller's connection."""
    kinds = sorted(KINDS) + rng.sample(sorted(KINDS), rng.randint(0, 2))
    rng.shuffle(kinds)
    return [Drawn(kind, rng.randrange(STEPS), rng.random() < 0.5) for kind in kinds]


def zone(rng: random.Random) -> int:
    """The answer's local clock, in minutes east of UTC (never UTC: a naive clock is right there by luck)."""
    return rng.choice(ZONES_MIN)


def told(name: str) -> str:
    kind = KINDS.get(name.split(" ")[0], HOLDER).told
    return kind + (f", {SHARED}" if name.endswith("(shared)") else "")


def open_arrangement(sessions, arrangement: list[Drawn], other_db: str, caller_name: str) -> dict[int, str]:
    """Open every session at its step; {pid: its name, e.g. "rc-writer #2", "monitor #4 (shared)"}."""
    names: dict[int, str] = {}
    for step in range(STEPS):
        for number, drawn in enumerate(arrangement, 1):
            if drawn.step != step:
                continue
            kind = drawn.kind
            name = f"{kind} #{number}" + " (shared)" * drawn.shared
            app = caller_name if drawn.shared else name
            if kind == "long-query":
                names[sessions.busy(60.0, app)] = name
                continue
            if kind == "lock-waiter":
                holder = sessions.open(name=f"lock-holder #{number}")
                # a literal, not a parameter: a statement run with parameters may leave its snapshot behind
                holder.execute(f"SELECT pg_advisory_xact_lock(11, {int(number)})")
                names[holder.info.backend_pid] = f"lock-holder #{number}"
            conn = sessions.open(autocommit=kind == "idle", name=app, dbname=other_db if kind == "other-db" else None)
            if kind in ("rr-reader", "rr-writer", "other-db", "monitor", "lock-waiter"):
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            conn.execute("SELECT 1" if kind in ("idle", "other-db") else
                         "SELECT count(*) FROM pg_stat_activity" if kind == "monitor" else "SELECT count(*) FROM notes")
            if kind in ("rc-writer", "rr-writer"):
                conn.execute("INSERT INTO notes VALUES (%s)", [number])
            if kind == "lock-waiter":
                _wait_for_lock(sessions, conn, number)
            names[conn.info.backend_pid] = name
        if step < STEPS - 1:
            time.sleep(STEP_S)
    time.sleep(STEP_S / 2)  # the youngest old enough to have a threshold under its age
    return names


def _wait_for_lock(sessions, conn: psycopg.Connection, number: int) -> None:
    """conn asks for the lock its holder took, in a thread of ours, and is seen waiting before we go on (the
    sessions' close cancels the wait)."""
    def ask():
        with contextlib.suppress(psycopg.Error):
            conn.execute(f"SELECT pg_advisory_xact_lock(11, {int(number)})")

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    sessions.threads.append(thread)
    deadline = time.monotonic() + 120  # bounds a hang only
    with psycopg.connect(sessions.conninfo, autocommit=True, connect_timeout=5) as watcher:
        while time.monotonic() < deadline:
            if watcher.execute("SELECT wait_event_type = 'Lock' FROM pg_stat_activity WHERE pid = %s",
                               [conn.info.backend_pid]).fetchone() == (True,):
                return
            time.sleep(0.02)
    raise RuntimeError(f"lock-waiter #{number} never waited for its lock")


def judge(t: Trial, conn: psycopg.Connection, names: dict[int, str], vacuum_blockers, pid_of, minutes: int) -> None:
    """At a threshold 0.05 s under each age, and at the fixed stage's, in a transaction of conn: the answer, its
    local clock `minutes` east of UTC, must list what the reference lists, in its order. A session whose age
    comes within the threshold during the answer's own call (an answer may read the clock, not now()) may be
    listed or not."""
    def call(threshold, minutes):
        with local_zone(minutes):
            return t.call(vacuum_blockers, conn, threshold, during=f"vacuum_blockers(conn, {threshold})")

    conn.execute("BEGIN")
    try:
        ages = dict(conn.execute("SELECT pid, extract(epoch FROM now() - xact_start)::float8 FROM pg_stat_activity "
                                 "WHERE pid = ANY(%s) AND xact_start IS NOT NULL", [list(names)]).fetchall())
        for threshold in sorted({round(age - 0.05, 2) for age in ages.values() if age > 0.1} | {FIXED_THRESHOLD_S}):
            got = call(threshold, minutes)
            [late] = conn.execute("SELECT extract(epoch FROM clock_timestamp() - now())::float8").fetchone()
            expected = [names[b.pid] for b in dead_rows.vacuum_blockers(conn, threshold) if b.pid in names]
            either = {names[pid] for pid, age in ages.items() if age <= threshold < age + late}

            def mine_of(got):
                ours = [names[p] for p in (pid_of(item) for item in got or []) if p in names]
                return ours, [n for n in ours if n not in either]

            ours, mine = mine_of(got)
            theirs = [n for n in expected if n not in either]
            if mine != theirs:
                missed, extra = [n for n in theirs if n not in mine], [n for n in mine if n not in theirs]
                why = "; ".join([f"missed {', '.join(missed)}"] * bool(missed) + [f"listed {', '.join(extra)}"] *
                                bool(extra)) or "the same sessions, in another order: oldest transaction first"
                if minutes and mine_of(call(threshold, 0))[1] == theirs:  # the zone alone makes the difference
                    why += (f" — with your local clock at {zone_told(minutes)} yours is off; at UTC it is right: "
                            "compare xact_start with now() in SQL, not with a naive datetime.now() (a laptop is "
                            "rarely on UTC)")
                # The smallest arrangement that shows it: the sessions the answer got wrong (and, for an order,
                # the ones it listed); the others it treated as the reference does.
                shown = set(missed + extra) or set(mine)
                described = "; ".join(f"{names[pid]}: {told(names[pid])}, open {age:.1f} s"
                                      for pid, age in sorted(ages.items(), key=lambda a: -a[1]) if names[pid] in shown)
                rest = len(names) - len(shown)
                again = (" (asked again: the same arguments as the check's first call, on other sessions)"
                         if threshold == FIXED_THRESHOLD_S else "")
                t.expect(DRAWN, ok=False, got=ours, expected=expected, note=why,
                         example=f"vacuum_blockers(conn, {threshold}){again}, your code run with its local clock at "
                                 f"{zone_told(minutes)}, with {described}"
                                 + (f" (and {rest} other session(s) your answer treated as the reference does)"
                                    if rest else ""))
                return
    finally:
        conn.execute("ROLLBACK")
    t.expect(DRAWN, ok=True)
