"""11.vacuum_blockers on sessions drawn at random: which hold a snapshot or a write, how old their
transaction is, idle or running a query, in this database or another. One seeded arrangement is opened for
real, then judged at a threshold just under each of its ages (so every session is tried on both sides of
the line), inside one transaction where now() and pg_stat_activity stand still, beside the reference."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import psycopg

from course.programs import dead_rows
from course.grading.trial import Trial

DRAWN = ("finds what the reference finds, oldest first, among sessions drawn at random (which hold a snapshot or a "
         "write, how old, idle or running a query, in this database or another)")
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
    "rc-reader": Kind("a READ COMMITTED transaction that only read, idle in transaction (holds neither)", False),
    "idle": Kind("a connection in no transaction at all (state 'idle')", False),
    "other-db": Kind("a REPEATABLE READ transaction of another database (a snapshot, not ours to chase)", False),
}


def draw(rng: random.Random) -> list[tuple[str, int]]:
    """(kind, the step its transaction starts at): every kind once, and up to two of them twice, in a drawn order
    of connection and of transactions' starts (several at one step, any kind oldest)."""
    kinds = sorted(KINDS) + rng.sample(sorted(KINDS), rng.randint(0, 2))
    rng.shuffle(kinds)
    return [(kind, rng.randrange(STEPS)) for kind in kinds]


def open_arrangement(sessions, arrangement: list[tuple[str, int]], other_db: str) -> dict[int, str]:
    """Open every session at its step; {pid: its name, e.g. "rc-writer #2"}."""
    names: dict[int, str] = {}
    for step in range(STEPS):
        for number, (kind, start) in enumerate(arrangement, 1):
            if start != step:
                continue
            name = f"{kind} #{number}"
            if kind == "long-query":
                names[sessions.busy(60.0, name)] = name
                continue
            conn = sessions.open(autocommit=kind == "idle", name=name,
                                 dbname=other_db if kind == "other-db" else None)
            if kind in ("rr-reader", "rr-writer", "other-db"):
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            conn.execute("SELECT 1" if kind in ("idle", "other-db") else "SELECT count(*) FROM notes")
            if kind in ("rc-writer", "rr-writer"):
                conn.execute("INSERT INTO notes VALUES (%s)", [number])
            names[conn.info.backend_pid] = name
        if step < STEPS - 1:
            time.sleep(STEP_S)
    time.sleep(STEP_S / 2)  # the youngest old enough to have a threshold under its age
    return names


def judge(t: Trial, conn: psycopg.Connection, names: dict[int, str], vacuum_blockers, pid_of) -> None:
    """At a threshold 0.05 s under each age, in a transaction of conn: the answer must list what the reference
    lists, in its order. A session whose age comes within the threshold during the answer's own call (an
    answer may read the clock, not now()) may be listed or not."""
    conn.execute("BEGIN")
    try:
        ages = dict(conn.execute("SELECT pid, extract(epoch FROM now() - xact_start)::float8 FROM pg_stat_activity "
                                 "WHERE pid = ANY(%s) AND xact_start IS NOT NULL", [list(names)]).fetchall())
        for threshold in sorted({round(age - 0.05, 2) for age in ages.values() if age > 0.1}):
            got = t.call(vacuum_blockers, conn, threshold, during=f"vacuum_blockers(conn, {threshold})")
            [late] = conn.execute("SELECT extract(epoch FROM clock_timestamp() - now())::float8").fetchone()
            expected = [names[b.pid] for b in dead_rows.vacuum_blockers(conn, threshold) if b.pid in names]
            either = {names[pid] for pid, age in ages.items() if age <= threshold < age + late}
            ours = [names[p] for p in (pid_of(item) for item in got or []) if p in names]
            mine, theirs = [n for n in ours if n not in either], [n for n in expected if n not in either]
            if mine != theirs:
                missed, extra = [n for n in theirs if n not in mine], [n for n in mine if n not in theirs]
                why = "; ".join([f"missed {', '.join(missed)}"] * bool(missed) + [f"listed {', '.join(extra)}"] *
                                bool(extra)) or "the same sessions, in another order: oldest transaction first"
                # The smallest arrangement that shows it: the sessions the answer got wrong (and, for an order,
                # the ones it listed); the others it treated as the reference does.
                shown = set(missed + extra) or set(mine)
                told = "; ".join(f"{names[pid]}: {KINDS[names[pid].split(' ')[0]].told}, open {age:.1f} s"
                                 for pid, age in sorted(ages.items(), key=lambda a: -a[1]) if names[pid] in shown)
                rest = len(names) - len(shown)
                t.expect(DRAWN, ok=False, got=ours, expected=expected, note=why,
                         example=f"vacuum_blockers(conn, {threshold}) with {told}"
                                 + (f" (and {rest} other session(s) your answer treated as the reference does)"
                                    if rest else ""))
                return
    finally:
        conn.execute("ROLLBACK")
    t.expect(DRAWN, ok=True)
