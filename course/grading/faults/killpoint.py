"""One run of a handler in a process of its own, for a check to SIGKILL at a point it chooses:
`python -m course.grading.faults.killpoint SPEC` (SPEC: a cloudpickled {conninfo, name, handler, job}).

The check, not a random timer, decides when the process dies: when its connection waits at the commit
(a deferred trigger holds it there), while its request is at the email provider, or in the middle of an
effect the child marks (`marked_at`), or before a statement `hold_statements` holds (08.tick). See
`run_and_kill` below; checks/shared.py's idempotent send (06 and 12) and 12.invoice_worker use it.
`run_and_hold` stops a child at its commit, its locks held, while the check runs a second worker, then
lets it commit: two workers at once, on cue. 05.relay holds a relay before its mark the same way.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import psycopg.sql

from course.infra import db, processes

# How long a child may go without reaching its point, or its end, before it is taken for hung. It bounds a
# hang, never a race for the CPU: a child starting Python on a loaded 2-core machine (load 20) has taken
# more than 20 s to get there.
HANG_S = 120.0


def run_and_kill(box, handler, job, *, when: Callable[[str], bool], env: dict[str, str],
                 timeout_s: float = HANG_S) -> str:
    """Run handler(job, conn) in a child process; SIGKILL it as soon as when(application_name) is true,
    then end its server session (a transaction it had open is rolled back, as a crash would leave it).
    Returns what happened: "killed", or "finished (exit code N)" when the point was never reached."""
    name, spec, child = _start(box, handler, job, env)
    try:
        bound = processes.HangBound(timeout_s)
        while child.alive() and not bound.passed():
            if when(name):
                child.kill()
                box.conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
                                 [name])
                return "killed"
            time.sleep(0.01)
        if child.alive():
            child.kill()
            return "killed at the time limit (it never reached the point)"
        return f"finished (exit code {child.wait()})"
    finally:
        spec.unlink(missing_ok=True)


def _start(box, handler, job, env: dict[str, str]) -> tuple[str, Path, processes.Child]:
    """The child process running handler(job, conn), on a session named for it (so the check can find it)."""
    name = f"killpoint-{os.getpid()}-{time.monotonic_ns() % 10**9}"
    spec = processes.pickle_for_child({"conninfo": box.conninfo, "name": name, "handler": handler, "job": job},
                                      "killpoint")
    return name, spec, processes.python("killpoint", __name__, str(spec), env=env)


def waiting_at_commit(box) -> Callable[[str], bool]:
    """True once the child's session sleeps in the deferred trigger `hold_commit` installs."""
    def check(name: str) -> bool:
        return bool(box.conn.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = %s "
                                     "AND wait_event = 'PgSleep'", [name]).fetchone()[0])
    return check


def hold_commit(conn: psycopg.Connection, table: str) -> None:
    """Every transaction that inserts into `table` waits at its COMMIT (after everything it did before)."""
    conn.execute(f"""
        CREATE OR REPLACE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN PERFORM pg_sleep(60); RETURN NULL; END $$;
        CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON {table}
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit();""")


def release_commit(conn: psycopg.Connection, table: str) -> None:
    conn.execute(f"DROP TRIGGER IF EXISTS hold_commit ON {table}")


def hold_commit_until_released(conn: psycopg.Connection, table: str, key: int) -> None:
    """Every kill-point child's transaction that inserts into `table` waits at its COMMIT, holding all its
    locks, until release_held_commit(conn, table, key); then it commits. Other sessions are not held.
    `conn` takes the advisory lock `key` the children wait for."""
    conn.execute("SELECT pg_advisory_lock(%s)", [key])
    conn.execute(f"""
        CREATE OR REPLACE FUNCTION hold_commit_until_released() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF current_setting('application_name') LIKE 'killpoint-%' THEN
                PERFORM pg_advisory_xact_lock({int(key)});
            END IF;
            RETURN NULL;
        END $$;
        CREATE CONSTRAINT TRIGGER hold_commit_until_released AFTER INSERT ON {table}
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit_until_released();""")


def release_held_commit(conn: psycopg.Connection, table: str, key: int) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s)", [key])
    conn.execute(f"DROP TRIGGER IF EXISTS hold_commit_until_released ON {table}")


def hold_statements(conn: psycopg.Connection, table: str, event: str, key: int, *,
                    sessions: str = "killpoint-%") -> None:
    """Every `event` statement (UPDATE, INSERT, DELETE) on `table` by a session whose application_name is
    LIKE `sessions` waits before it touches a row, on the advisory lock `key` that `conn` takes here: a
    statement moved after its transaction's commit is caught with that commit done and nothing else.
    release_statements(conn, table, key) lets them go."""
    conn.execute("SELECT pg_advisory_lock(%s)", [key])
    conn.execute(f"""
        CREATE OR REPLACE FUNCTION hold_statements() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF current_setting('application_name') LIKE {_literal(conn, sessions)} THEN
                PERFORM pg_advisory_xact_lock({int(key)});
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER hold_statements BEFORE {event} ON {table}
          FOR EACH STATEMENT EXECUTE FUNCTION hold_statements();""")


def release_statements(conn: psycopg.Connection, table: str, key: int) -> None:
    conn.execute("SELECT pg_advisory_unlock(%s)", [key])
    conn.execute(f"DROP TRIGGER IF EXISTS hold_statements ON {table}")


def _literal(conn: psycopg.Connection, text: str) -> str:
    return psycopg.sql.Literal(text).as_string(conn)


def waiting_on_a_held_statement(box) -> Callable[[str], bool]:
    """True once the session named `name` waits at a statement hold_statements holds (or at a commit
    hold_commit_until_released holds)."""
    def check(name: str) -> bool:
        return bool(box.conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s AND wait_event_type = 'Lock' "
            "AND wait_event = 'advisory'", [name]).fetchone()[0])
    return check


def run_and_hold(box, handler, job, *, table: str, meanwhile: Callable[[], object], env: dict[str, str],
                 timeout_s: float = HANG_S) -> str:
    """Run handler(job, conn) in a child process and stop it at its COMMIT with every lock it took still
    held; run meanwhile() (another worker's run of the same job, say) while it waits there; then let it
    commit and finish. Returns what happened: "held at its commit, then committed", or how it ended
    when it never reached a commit that wrote into `table`."""
    key = secrets.randbits(31)
    hold_commit_until_released(box.conn, table, key)
    name, spec, child = _start(box, handler, job, env)
    held = False
    try:
        bound = processes.HangBound(timeout_s)
        waiting = waiting_on_a_held_statement(box)
        while child.alive() and not bound.passed() and not held:
            held = waiting(name)
            time.sleep(0 if held else 0.01)
        if held:
            meanwhile()
    finally:
        release_held_commit(box.conn, table, key)
        spec.unlink(missing_ok=True)
    try:
        code = child.wait(timeout_s)
    except subprocess.TimeoutExpired:
        child.kill()
        return "killed at the time limit"
    return "held at its commit, then committed" if held and code == 0 else f"finished (exit code {code})"


def marked_at(handler, module_name: str, function: str, marker: Path):
    """handler, run in the child so that `module.function` (the effect: render_invoice_pdf) first touches
    `marker`: the check can then kill the process in the middle of the effect, not before or after it."""
    def run(job, conn):
        import importlib

        module = importlib.import_module(module_name)
        real = getattr(module, function)

        def effect(*args, **kwargs):
            marker.touch()
            return real(*args, **kwargs)

        setattr(module, function, effect)
        handler(job, conn)
    return run


def in_the_effect(marker: Path) -> Callable[[str], bool]:
    """True once the child has started its effect (see marked_at)."""
    return lambda name: marker.exists()


def main(argv: list[str]) -> int:
    spec = processes.unpickle(argv[0])
    # Sandboxed (class grading), the child reaches the server only through its sandbox's gate
    with psycopg.connect(db.reached_here(spec["conninfo"]), autocommit=True, connect_timeout=5,
                         application_name=spec["name"]) as conn:
        spec["handler"](spec["job"], conn)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
