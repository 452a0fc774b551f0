"""One run of a handler in a process of its own, for a check to SIGKILL at a point it chooses:
`python -m course.grading.checks.killpoint SPEC` (SPEC: a cloudpickled {conninfo, name, handler, job}).

The check, not a random timer, decides when the process dies: when its connection waits at the commit
(a deferred trigger holds it there), or while its request is at the email provider. See
`run_and_kill` below; lab 12's confirmation-email check uses it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cloudpickle
import psycopg

from course.infra import processes


def run_and_kill(box, handler, job, *, when: Callable[[str], bool], env: dict[str, str],
                 timeout_s: float = 20.0) -> str:
    """Run handler(job, conn) in a child process; SIGKILL it as soon as when(application_name) is true,
    then end its server session (a transaction it had open is rolled back, as a crash would leave it).
    Returns what happened: "killed", or "finished (exit code N)" when the point was never reached."""
    name = f"killpoint-{os.getpid()}-{time.monotonic_ns() % 10**9}"
    spec = Path(tempfile.mkstemp(prefix="course-killpoint-", suffix=".pkl")[1])
    spec.write_bytes(cloudpickle.dumps({"conninfo": box.conninfo, "name": name, "handler": handler, "job": job}))
    child = processes.python("killpoint", __name__, str(spec), env=env)
    try:
        deadline = time.monotonic() + timeout_s
        while child.alive() and time.monotonic() < deadline:
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


def main(argv: list[str]) -> int:
    spec = cloudpickle.loads(Path(argv[0]).read_bytes())
    with psycopg.connect(spec["conninfo"], autocommit=True, connect_timeout=5, application_name=spec["name"]) as conn:
        spec["handler"](spec["job"], conn)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
