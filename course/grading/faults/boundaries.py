"""A connection that crashes, or lets another session act, at a chosen statement boundary.

Boundary k is the moment just before the k-th command the connection sends to the server: a statement
(`conn.execute`, a cursor's `execute`) or a transaction's BEGIN, COMMIT, ROLLBACK or SAVEPOINT. So a crash
"at boundary k" after a COMMIT keeps that transaction, and one just before the COMMIT loses it — the two
points a crash between a charge and a commit can fall on.

    conn = Watched.connect(conninfo, autocommit=True)
    conn.at(k, crash_on(box.conn))      # the server ends the session there (its open transaction is rolled
                                          back, as a SIGKILL leaves it), then Crashed is raised: every later
                                          command raises it too, so nothing runs after the crash
    conn.at(k, lambda: reconcile())     # another session acts there, then the code carries on
    conn.seen                           # the boundaries passed so far

A run whose code never reaches boundary k passed every point it has: `seen < k` says so. The crash
is the session's end on the server plus a BaseException in the client: what a killed process leaves in
PostgreSQL and at the payment provider (whose record is written on its own session), without starting a
process per point. Code that opens connections of its own escapes it (say so in the exercise).
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg


class Crashed(BaseException):
    """The process died at this boundary (a BaseException: `except Exception` in the code under test does
    not catch it, as it could not catch a SIGKILL)."""


class _Cursor(psycopg.Cursor):
    def execute(self, *args, **kwargs):
        self.connection._boundary()
        return super().execute(*args, **kwargs)

    def executemany(self, *args, **kwargs):
        self.connection._boundary()
        return super().executemany(*args, **kwargs)

    def stream(self, *args, **kwargs):
        self.connection._boundary()
        return super().stream(*args, **kwargs)

    def copy(self, *args, **kwargs):
        self.connection._boundary()
        return super().copy(*args, **kwargs)


class Watched(psycopg.Connection):
    """A psycopg connection whose statement boundaries are counted, one of which may act (see above)."""

    seen: int = 0
    crashed: bool = False
    _point: int | None = None
    _action: Callable[[], None] | None = None

    @classmethod
    def connect(cls, *args, **kwargs) -> "Watched":
        conn = super().connect(*args, cursor_factory=_Cursor, **kwargs)
        conn.seen, conn.crashed, conn._point, conn._action = 0, False, None, None
        return conn

    def at(self, point: int, action: Callable[[], None]) -> "Watched":
        self._point, self._action = point, action
        return self

    def _boundary(self) -> None:
        if self.crashed:
            raise Crashed(f"the process died at boundary {self._point}")
        self.seen += 1
        if self.seen == self._point and self._action is not None:
            self._action()  # raises Crashed for a crash (after setting `crashed`), returns for a meanwhile

    def __exit__(self, exc_type, exc_val, exc_tb):
        if self.crashed:  # a dead session has nothing to commit or roll back
            self.close()
            return None
        return super().__exit__(exc_type, exc_val, exc_tb)

    # BEGIN, COMMIT, ROLLBACK and SAVEPOINT go through here (psycopg's transaction blocks and commit()).
    def _exec_command(self, *args, **kwargs):
        self._boundary()
        return super()._exec_command(*args, **kwargs)


def crash_on(conn: Watched, server: psycopg.Connection) -> Callable[[], None]:
    """The action that kills `conn` at its boundary: `server` (a session of the check's) ends conn's backend
    and waits until it is gone, so its open transaction is rolled back before the check reads anything."""
    def crash() -> None:
        conn.crashed = True
        server.execute("SELECT pg_terminate_backend(%s, 60000)", [conn.info.backend_pid])
        raise Crashed(f"the process died at boundary {conn.seen}")
    return crash
