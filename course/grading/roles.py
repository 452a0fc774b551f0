"""A database role per graded notebook: it may create schemas and owns only those, so an answer that
runs `DROP SCHEMA public CASCADE`, or drops another student's schemas, is refused by PostgreSQL.

Each role gets a database of its own too (named as the role; only it and the course's user may connect):
LISTEN/NOTIFY channels and advisory locks belong to one database, so a notebook can neither hear nor wake
a classmate's listeners, nor hold the advisory lock a classmate's scheduler takes, nor see the rows of a
schema a classmate's checks made. (pg_stat_activity and pg_locks still list every database's sessions:
their roles and lock keys, never another role's statements.)

    Roles()                 can this database make such roles? (why not, in one line, when it cannot)
    roles.create()          a fresh role and the connection string a grading child logs in with
    roles.drop(role)        its sessions ended, its schemas and the role dropped
    roles.left_behind()     the roles a killed earlier grade run on this machine left, dropped
    with catalog_lock(conn): a transaction holding the graders' lock, which every grader and test takes
                            to change a shared catalog row (a GRANT on a database, DROP OWNED)
    schemas()               the schemas on the server (compared before and after, when roles cannot be made)

`python -m course grade` (course/grading/grade.py) makes one per notebook it grades.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import socket
import threading
import time

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from course.infra import processes

ROLE_PREFIX = "course_grade_"


# GRANT on the database and DROP OWNED update the database's shared catalog row: two sessions doing it
# at once fail with "tuple concurrently updated". The thread lock orders one grader's threads; a lock on
# a table of the course's user (held to the end of the transaction) orders every grader on the server,
# and the test suite's parallel processes. Not an advisory lock: any role may take one of those, and a
# notebook that held the graders' key (in a backend asleep in pg_sleep) stopped every grade run.
LOCK_SCHEMA, LOCK_TABLE = "course_grading", "roles_lock"
CATALOG_LOCK = f"LOCK TABLE {LOCK_SCHEMA}.{LOCK_TABLE} IN EXCLUSIVE MODE"
CONNECTIONS = 300  # max_connections, when the server cannot be asked
# What a role's sessions write into the server's log, which has no bound: a notebook's RAISE WARNING of 1 MB
# in a loop wrote 256 MB there in seconds (hostile3, attack 12), and a failing statement is logged with its
# text. Only what ends a session (FATAL, PANIC) is logged for a graded role; its errors reach its client.
QUIET_LOG = {"log_min_messages": "fatal", "log_min_error_statement": "panic"}
DISK_BUDGET_BYTES = 2 << 30  # what one notebook's role may own on the server's disk (no check writes 1/10 of it)
TEMP_FILE_LIMIT = "1GB"  # per session: sorts and hashes spilled to disk
WATCH_EVERY_S = 2.0
# How long one of a notebook's sessions may run a statement, wait for a lock, or sit idle in a transaction:
# the role's defaults (a clear error in the session), and, since a session may SET them back to 0, the
# watch's bound (the session is ended). Each is longer than an exercise's whole default time limit (120 s)
# and far above what any check or set-up cell holds (measured on a grade of every solution: see
# tests/grading/test_roles_caps.py). A listener idle in a transaction holds back the server's NOTIFY queue
# for every database: the idle bound is what keeps one notebook from filling it.
SESSION_BOUNDS_S = {"statement_timeout": 150, "lock_timeout": 150, "idle_in_transaction_session_timeout": 150}
OVERSTAY_S = 10  # past its own bound, the watch ends a session (it SET the bound off)
# The NOTIFY queue (8 GiB, server-wide) fills at ~46 MiB/s from one session at load 35, ~3 min: faster than the
# idle bound. Past this share of it, the role's transactions older than HOLDING_S are ended (a listener's
# open transaction is what holds the queue's tail; no course session comes near 1 %).
NOTIFY_QUEUE_SHARE = 0.01
HOLDING_S = 10

class Roles:
    """Makes a login role per graded notebook that can create schemas and own only those."""

    def __init__(self, share: int = 2):
        """`share`: how many notebooks are graded at once; each role may hold its share of the server's
        connections, so a notebook that opens all it can starves no classmate."""
        from course.infra import db

        self.db = db
        self.base = db.database().conninfo
        self.dbname = conninfo_to_dict(self.base).get("dbname") or "course"
        self.available, self.why_not = True, ""
        self.own_databases = False  # a database per role (course user with CREATEDB), or the course's, shared
        # GRANT on the database and DROP ROLE update shared catalog rows: two at once fail with
        # "tuple concurrently updated", so the grader's threads take turns.
        self.lock = threading.Lock()
        try:
            with db.connect() as conn:
                can, self.own_databases = conn.execute("SELECT rolsuper OR rolcreaterole, rolsuper OR rolcreatedb "
                                                       "FROM pg_roles WHERE rolname = current_user").fetchone()
            if not can:
                self.available, self.why_not = False, "the course's database user may not create roles"
            else:
                with db.connect() as conn:
                    limit = int(conn.execute("SELECT current_setting('max_connections')").fetchone()[0] or CONNECTIONS)
                    self.connection_limit = max(10, (limit - 20) // (max(1, share) + 1))
        except Exception as error:  # a database that refuses: say so once, grade as the course's user
            self.available, self.why_not = False, f"{type(error).__name__}: {error}"
        if self.available:
            self.left_behind()
            self._probe()

    def owner_tag(self) -> str:
        return f"made by course grade, pid {os.getpid()} on {socket.gethostname()}"

    def left_behind(self) -> list[str]:
        """Drop the roles (and what they own) that an earlier grade run on this machine, since killed, left."""
        with self.db.connect() as conn:
            found = conn.execute("SELECT rolname, shobj_description(oid, 'pg_authid') FROM pg_roles "
                                 "WHERE rolname LIKE %s", [ROLE_PREFIX.replace("_", "\\_") + "%"]).fetchall()
        dropped = []
        for role, comment in found:
            match = re.fullmatch(r"made by course grade, pid (\d+) on (.+)", comment or "")
            if match and match[2] == socket.gethostname() and not processes.pid_alive(int(match[1])):
                self.drop(role)
                dropped.append(role)
        return dropped

    def _probe(self) -> None:
        """Can a role made this way log in (pg_hba.conf may admit only some users)?"""
        import psycopg

        role = None
        try:
            role, info = self.create()
            psycopg.connect(info, connect_timeout=self.db.CONNECT_TIMEOUT_S).close()
        except Exception as error:  # noqa: BLE001 — any refusal means: grade as the course's user
            self.available = False
            self.why_not = f"a role made for grading could not log in ({str(error).strip().splitlines()[0]})"
        finally:
            if role is not None:
                self.drop(role)

    def create(self) -> tuple[str | None, str]:
        """(role, conninfo for the child); role None when roles are not available."""
        if not self.available:
            return None, self.base
        role, password = ROLE_PREFIX + secrets.token_hex(4), secrets.token_hex(16)
        with self.lock, self.db.connect() as conn, catalog_lock(conn):  # all or nothing: no half-made role
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                                 "CONNECTION LIMIT {} PASSWORD {}").format(
                sql.Identifier(role), sql.Literal(self.connection_limit), sql.Literal(password)))
            conn.execute(sql.SQL("ALTER ROLE {} SET temp_file_limit = {}").format(
                sql.Identifier(role), sql.Literal(TEMP_FILE_LIMIT)))  # only a superuser may change it
            for setting, level in QUIET_LOG.items():  # as temp_file_limit: the role cannot set them back
                conn.execute(sql.SQL("ALTER ROLE {} SET {} = {}").format(
                    sql.Identifier(role), sql.Identifier(setting), sql.Literal(level)))
            for setting, seconds in SESSION_BOUNDS_S.items():
                conn.execute(sql.SQL("ALTER ROLE {} SET {} = {}").format(
                    sql.Identifier(role), sql.Identifier(setting), sql.Literal(f"{seconds}s")))
            conn.execute(sql.SQL("COMMENT ON ROLE {} IS {}").format(sql.Identifier(role),
                                                                   sql.Literal(self.owner_tag())))
        dbname = self._database_for(role)
        return role, make_conninfo(self.base, user=role, password=password, dbname=dbname)

    def _database_for(self, role: str) -> str:
        """The role's own database (named as the role), only it and the course's user may connect to; the
        course's database, shared, where the course's user may not create one."""
        grant = "GRANT CONNECT, CREATE, TEMPORARY ON DATABASE {} TO {}"
        with self.lock, self.db.connect() as conn:
            conn.autocommit = True
            if self.own_databases:
                try:
                    conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(role)))
                    conn.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(role)))
                    conn.execute(sql.SQL(grant).format(sql.Identifier(role), sql.Identifier(role)))
                    return role
                except psycopg.Error:
                    with contextlib.suppress(psycopg.Error):
                        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(role)))
            with catalog_lock(conn):
                conn.execute(sql.SQL(grant).format(sql.Identifier(self.dbname), sql.Identifier(role)))
        return self.dbname

    @contextlib.contextmanager
    def watched(self, role: str | None, budget_bytes: int = DISK_BUDGET_BYTES, bounds_s: dict | None = None):
        """While the block runs, the role's tables and large objects are measured every few seconds; past the budget its
        sessions are ended and it may not log in again (a notebook filling the server's disk fills everyone's).
        `.ended` then says so, for the gradebook's flags. A session that overstays its bounds (SESSION_BOUNDS_S:
        a statement, or idle in a transaction) is ended, and `.overstayed` says so."""
        bounds = {**SESSION_BOUNDS_S, **(bounds_s or {})}
        watch = Watch()
        if role is None:
            yield watch
            return
        done = threading.Event()

        def measure():
            try:
                with psycopg.connect(self._conninfo_in(role), autocommit=True,
                                     connect_timeout=self.db.CONNECT_TIMEOUT_S) as conn:
                    conn.autocommit = True
                    while not done.wait(WATCH_EVERY_S):
                        ended = conn.execute(OVERSTAYED, {
                            "role": role, "active_s": bounds["statement_timeout"] + OVERSTAY_S,
                            "idle_s": bounds["idle_in_transaction_session_timeout"] + OVERSTAY_S}).fetchall()
                        if conn.execute("SELECT pg_notification_queue_usage()").fetchone()[0] > NOTIFY_QUEUE_SHARE:
                            ended += [(f"in a transaction while the NOTIFY queue was over {NOTIFY_QUEUE_SHARE:.0%} full",
                                       seconds) for _, seconds in conn.execute(HOLDING, {"role": role, "s": HOLDING_S})]
                        for state, seconds in ended:
                            watch.overstayed.append(f"a session {state} for {seconds:,.0f} s was ended")
                        used = conn.execute(OWNED_BYTES, {"role": role}).fetchone()[0]
                        if used > budget_bytes:
                            conn.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(role)))
                            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s",
                                         [role])
                            watch.ended = (f"its database role owned {used / 2**20:,.0f} MiB of tables, over the "
                                           f"{budget_bytes / 2**20:,.0f} MiB a notebook may: its sessions were ended")
                            return
            except psycopg.Error:
                pass  # the server went away: the checks say so in their own rows

        thread = threading.Thread(target=measure, name=f"disk-{role}", daemon=True)
        thread.start()
        try:
            yield watch
        finally:
            done.set()
            thread.join(10)

    def drop(self, role: str | None) -> None:
        """End the role's sessions, drop the schemas it made (scratch schemas a killed check left) and the role.
        A role already gone is fine: another grader's clean-up (left_behind) may have got there first."""
        if role is None:
            return
        with self.db.connect() as conn:
            conn.autocommit = True
            if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone():
                return
            with contextlib.suppress(psycopg.Error):  # no new sessions (another grader may drop it meanwhile)
                conn.execute(sql.SQL("ALTER ROLE {} NOLOGIN").format(sql.Identifier(role)))
            conn.autocommit = False
            # Its sessions end before we take any lock: one asleep in pg_sleep holds what it took till then
            conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", [role])
            for _ in range(100):
                if not conn.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = %s", [role]).fetchone()[0]:
                    break
                time.sleep(0.1)
            conn.commit()
            conn.autocommit = True  # its database (if it has one) first: its sessions, should one be left, ended
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(role)))
            self._locked(conn, role, "DROP OWNED BY {} CASCADE", "DROP ROLE {}")

    def _conninfo_in(self, role: str) -> str:
        """The course's user's connection string, into the role's database (the course's, if it has none)."""
        with self.db.connect() as conn:
            own = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [role]).fetchone()
        return make_conninfo(self.base, dbname=role) if own else self.base

    def _locked(self, conn, role: str, *statements: str) -> bool:
        """Run the statements on `role` under the catalog lock, if the role still exists; did it?"""
        with self.lock, catalog_lock(conn):
            if not conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role]).fetchone():
                return False
            for statement in statements:
                conn.execute(sql.SQL(statement).format(sql.Identifier(role)))
        return True


# What a role has put on the server's disk: its tables (with their indexes and TOAST) and its large objects
# (stored in the catalog's pg_largeobject, which the tables' sum misses; none is read when it owns none)
OWNED_BYTES = """
SELECT coalesce((SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner
                 WHERE r.rolname = %(role)s AND c.relkind IN ('r', 'm', 't')), 0)
     + coalesce((SELECT sum(octet_length(l.data)) FROM pg_largeobject l
                 JOIN pg_largeobject_metadata m ON m.oid = l.loid JOIN pg_roles r ON r.oid = m.lomowner
                 WHERE r.rolname = %(role)s), 0)"""


# The role's sessions past their bounds, ended: a statement (or a lock wait) running, or a transaction idle
OVERSTAYED = """
WITH over AS MATERIALIZED (
  SELECT pid, state, extract(epoch FROM now() - CASE state WHEN 'active' THEN query_start ELSE state_change END) AS s
  FROM pg_stat_activity
  WHERE usename = %(role)s AND pid <> pg_backend_pid()
    AND ((state = 'active' AND query_start < now() - make_interval(secs => %(active_s)s))
      OR (state LIKE 'idle in transaction%%' AND state_change < now() - make_interval(secs => %(idle_s)s))))
SELECT state, s FROM over WHERE pg_terminate_backend(pid)"""


# The role's transactions open for over %(s)s seconds, ended (the NOTIFY queue is filling: one of them holds it)
HOLDING = """
WITH over AS MATERIALIZED (
  SELECT pid, extract(epoch FROM now() - xact_start) AS s FROM pg_stat_activity
  WHERE usename = %(role)s AND pid <> pg_backend_pid() AND xact_start < now() - make_interval(secs => %(s)s))
SELECT 'holding', s FROM over WHERE pg_terminate_backend(pid)"""


class Watch:
    ended: str = ""  # why the role's sessions were ended, if they were

    def __init__(self):
        self.overstayed: list[str] = []  # sessions ended for running or idling in a transaction too long


@contextlib.contextmanager
def catalog_lock(conn):
    """A transaction on `conn` (a connection of the course's user, or the superuser's) holding the graders'
    lock to its end: what changes a shared catalog row (GRANT on a database, DROP OWNED, DROP ROLE) runs in
    it. The lock's table is made the first time."""
    if conn.execute("SELECT to_regclass(%s)", [f"{LOCK_SCHEMA}.{LOCK_TABLE}"]).fetchone()[0] is None:
        _make_lock_table(conn)
    with conn.transaction():
        conn.execute(CATALOG_LOCK)
        yield conn


def _make_lock_table(conn) -> None:
    """The table whose lock orders the graders: the course's user's, in a schema no other role may use."""
    import psycopg

    for _ in range(5):  # two graders making it at once: one wins, the other sees it
        try:
            with conn.transaction():
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {LOCK_SCHEMA}")
                conn.execute(f"REVOKE ALL ON SCHEMA {LOCK_SCHEMA} FROM PUBLIC")
                conn.execute(f"CREATE TABLE IF NOT EXISTS {LOCK_SCHEMA}.{LOCK_TABLE} ()")
            return
        except (psycopg.errors.UniqueViolation, psycopg.errors.DuplicateObject, psycopg.errors.DuplicateTable):
            continue


def schemas() -> set[str]:
    from course.infra import db

    with db.connect() as conn:
        return {name for (name,) in conn.execute(
            "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'")}
