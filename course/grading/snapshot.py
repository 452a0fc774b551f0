"""What a schema holds, as plain data a check can compare: every table's rows by primary key, each time
as seconds from the moment it was read.

    reader = Reader.of(conn)              # the catalog, read once: tables, primary keys, column types
    state = reader.read(conn)             # one round trip: {"jobs": {(1,): {"id": 1, "run_at": At(-2.0), ...}}}
    mismatches(ours, theirs, slack_s=0.25)  # [Mismatch("jobs", (1,), "run_at", At(-2.0), At(28.0)), ...]

Times are read relative to `now()` in the same statement, so two runs made a few milliseconds apart (the
learner's answer, then the reference) compare equal when they wrote the same "now() + 30 s"; `slack_s`
absorbs an answer that used clock_timestamp() or Python's clock instead of now(). Nothing here knows a
lab: a check gets the whole schema, the diff of every table, and says in its own words what differs.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql

MISSING = "(no such row)"  # one side of a Mismatch where the row does not exist at all


@dataclass(frozen=True, order=True)
class At:
    """A moment, as seconds from when the state was read: -2.0 is two seconds ago, 30.0 is in 30 s."""
    seconds: float

    def __str__(self) -> str:
        return in_words(self.seconds)


def in_words(seconds: float) -> str:
    """-2 -> '2 s ago', 0 -> 'now', 30 -> 'in 30 s', 5400 -> 'in 1.5 h' (the learner's terms)."""
    if math.isinf(seconds):
        return "never (infinity)" if seconds > 0 else "-infinity"
    if abs(seconds) < 0.005:
        return "now"
    size = abs(seconds)
    if size < 120:  # tenths above a second: a time read a few ms later must read the same
        amount = f"{size:.3g} s" if size < 1 else f"{round(size, 1):g} s"
    elif size < 7200:
        amount = f"{size / 60:.3g} min"
    elif size < 172800:
        amount = f"{size / 3600:.3g} h"
    else:
        amount = f"{size / 86400:.3g} days"
    return f"in {amount}" if seconds > 0 else f"{amount} ago"


@dataclass(frozen=True)
class Table:
    name: str
    key: tuple[str, ...]  # the primary key's columns; every column when the table has none
    columns: tuple[tuple[str, str], ...]  # (name, kind): "time", "moment", "duration" or "value"


State = dict[str, dict[tuple, dict[str, Any]]]  # table -> primary key -> column -> value


class LateState(dict):
    """A state read `lag_s` seconds (the server's clock) after the run that wrote it began: a time the run
    wrote as now() + 30 s reads as anything from 30 - lag_s to 30. `mismatches` widens its slack by that."""

    def __init__(self, state: State, lag_s: float):
        super().__init__(state)
        self.lag_s = max(0.0, float(lag_s))


def lag_of(state: State) -> float:
    return getattr(state, "lag_s", 0.0)


@dataclass(frozen=True)
class Reader:
    """Reads every table of the connection's schema in one statement."""
    tables: tuple[Table, ...]
    query: str

    @classmethod
    def of(cls, conn: psycopg.Connection, *, only: tuple[str, ...] | None = None,
           moments: tuple[str, ...] = ()) -> "Reader":
        """`moments` names columns ("schedule_runs.slot") read as the datetime they hold, not as seconds
        from now: a moment of a simulated clock (a schedule's slot in 2099) means itself."""
        columns: dict[str, list[tuple[str, str]]] = {}
        for table, column, kind in conn.execute(_COLUMNS).fetchall():
            if only is None or table in only:
                columns.setdefault(table, []).append((column, "moment" if f"{table}.{column}" in moments else kind))
        keys: dict[str, list[str]] = {}
        for table, column in conn.execute(_KEYS).fetchall():
            keys.setdefault(table, []).append(column)
        tables = tuple(Table(name, tuple(keys.get(name) or [c for c, _ in cols]), tuple(cols))
                       for name, cols in sorted(columns.items()))
        return cls(tables, _reading(conn, tables))

    def read(self, conn: psycopg.Connection, *, then: str = "", step_s: float | None = None) -> State:
        """Every table's rows; `then` (a statement such as ROLLBACK) runs in the same round trip, after.
        step_s rounds every time to that step: a state written and read in real time, by several sessions,
        reads the same run after run (20 s, not 19.9 s once the machine is busy)."""
        row = conn.execute(self.query + (f"; {then}" if then else "")).fetchone()
        state: State = {}
        for table, rows in zip(self.tables, row):
            found: dict[tuple, dict[str, Any]] = {}
            for values in json.loads(rows) if isinstance(rows, str) else rows:
                record = {name: _plain(value, kind, step_s) for (name, kind), value in zip(table.columns, values)}
                key = tuple(record[name] for name in table.key)
                while key in found:  # a table without a primary key may hold the same row twice
                    key = (*key, "again")
                found[key] = record
            state[table.name] = found
        return state


_COLUMNS = """
SELECT c.relname, a.attname,
       CASE WHEN a.atttypid IN ('timestamptz'::regtype, 'timestamp'::regtype, 'date'::regtype) THEN 'time'
            WHEN a.atttypid = 'interval'::regtype THEN 'duration' ELSE 'value' END
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum"""

_KEYS = """
SELECT c.relname, a.attname
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, position) ON true
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE n.nspname = current_schema() AND i.indisprimary
ORDER BY c.relname, k.position"""


def _reading(conn: psycopg.Connection, tables: tuple[Table, ...]) -> str:
    """SELECT (every row of table 1 as a JSON array of arrays), (table 2), ... — times as seconds from now()."""
    def column(name: str, kind: str) -> sql.Composable:
        ident = sql.Identifier(name)
        if kind == "time":  # infinity has no distance from now: say which infinity it is
            return sql.SQL("CASE WHEN {c} IS NULL THEN NULL WHEN isfinite({c}) "
                           "THEN extract(epoch FROM {c}::timestamptz - now())::float8::text "
                           "WHEN {c}::timestamptz > now() THEN 'Infinity' ELSE '-Infinity' END").format(c=ident)
        if kind == "duration":
            return sql.SQL("extract(epoch FROM {c})::float8::text").format(c=ident)
        return ident

    parts = []
    for table in tables:
        values = sql.SQL(", ").join(column(name, kind) for name, kind in table.columns)
        order = sql.SQL(", ").join(sql.Identifier(name) for name in table.key)
        parts.append(sql.SQL("(SELECT coalesce(json_agg(json_build_array({values}) ORDER BY {order}), '[]') "
                             "FROM {table})").format(values=values, order=order, table=sql.Identifier(table.name)))
    return sql.SQL("SELECT {}").format(sql.SQL(", ").join(parts)).as_string(conn) if parts else "SELECT"


def _plain(value: Any, kind: str, step_s: float | None = None) -> Any:
    if value is None:
        return None
    if kind == "time":
        seconds = float(value)
        return At(round(seconds / step_s) * step_s if step_s and math.isfinite(seconds) else seconds)
    if kind == "duration":
        return float(value)
    if kind == "moment":
        return datetime.fromisoformat(value)
    return value


# -- comparing two states -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Mismatch:
    table: str
    key: tuple
    column: str | None  # None: the row exists on one side only (ours or theirs is MISSING)
    ours: Any
    theirs: Any


def same(ours: Any, theirs: Any, slack_s: float) -> bool:
    """Equal, with times (and durations in seconds) allowed to differ by slack_s."""
    if isinstance(ours, At) and isinstance(theirs, At):
        if math.isinf(ours.seconds) or math.isinf(theirs.seconds):
            return ours.seconds == theirs.seconds
        return abs(ours.seconds - theirs.seconds) <= slack_s
    if isinstance(ours, float) and isinstance(theirs, float):
        return abs(ours - theirs) <= slack_s or ours == theirs
    return ours == theirs


def mismatches(ours: State, theirs: State, *, slack_s: float = 0.25) -> list[Mismatch]:
    """Every row present on one side only, and every column that differs, table by table, in key order.
    A LateState's lag widens the slack: its times were read that much after they were written."""
    slack_s += max(lag_of(ours), lag_of(theirs))
    found = []
    for table in sorted(set(ours) | set(theirs)):
        mine, reference = ours.get(table, {}), theirs.get(table, {})
        for key in sorted(set(mine) | set(reference), key=repr):
            if key not in mine:
                found.append(Mismatch(table, key, None, MISSING, reference[key]))
            elif key not in reference:
                found.append(Mismatch(table, key, None, mine[key], MISSING))
            else:
                for column in mine[key]:
                    if not same(mine[key][column], reference[key].get(column), slack_s):
                        found.append(Mismatch(table, key, column, mine[key][column], reference[key].get(column)))
    return found
