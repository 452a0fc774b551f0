"""What lab 09's checks share: the other jobs a scenario installs, and what an answer stored."""

from __future__ import annotations

from psycopg import sql
from psycopg.types.json import Jsonb

from course.core import queue
from course.programs.newsletter import NEWSLETTER_PRIORITY

from course.grading import differential as diff
from course.grading.snapshot import State


DEFAULT_SEED = 9
NEW_FROM = 7000  # the scenario's own jobs have ids below this; the answer's get ids above it
JOB_COLUMNS = ("queue", "type", "payload", "priority", "attempts", "max_attempts", "lease_token", "unique_key")


def _others(count: int) -> list[list[sql.Composable]]:
    """Jobs already waiting: a confirmation, a newsletter job, jobs at other priorities and on other queues."""
    kinds = [("urgent", "send_confirmation_email", {"booking_id": 980}, 0),
             ("default", "send_newsletter", {"guest_id": 1}, NEWSLETTER_PRIORITY),
             ("bulk", "render_invoice", {"booking_id": 979}, 0), ("default", "send_confirmation_email",
                                                                  {"booking_id": 978}, 0),
             ("default", "rebuild_search_index", {}, -5), ("default", "sync_channel_manager", {"hotel": 3}, 5)]
    return [[sql.Literal(100 + n), sql.Literal(q), sql.Literal(t), sql.Literal(Jsonb(p)), sql.Literal(pr)]
            for n, (q, t, p, pr) in enumerate(kinds[:count])]


def _install_jobs(count: int) -> sql.Composable:
    rows = _others(count)
    parts = [sql.SQL("INSERT INTO jobs (id, queue, type, payload, priority) ") + diff.values(rows)] if rows else []
    parts.append(sql.SQL("SELECT setval(pg_get_serial_sequence('jobs', 'id'), {})").format(sql.Literal(NEW_FROM)))
    return sql.SQL("; ").join(parts)


def _new_jobs(state: State) -> dict[int, dict]:
    return {key[0]: row for key, row in state.get("jobs", {}).items() if key[0] > NEW_FROM}


def _kept(state: State, before: State) -> bool:
    """Whether the jobs that were there before are there still, as they were."""
    old = {key: row for key, row in state.get("jobs", {}).items() if key[0] <= NEW_FROM}
    return {k: _columns(r) for k, r in old.items()} == {k: _columns(r) for k, r in before.get("jobs", {}).items()}


def _columns(row: dict) -> tuple:
    return tuple(row.get(name) for name in JOB_COLUMNS)


def _is_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
