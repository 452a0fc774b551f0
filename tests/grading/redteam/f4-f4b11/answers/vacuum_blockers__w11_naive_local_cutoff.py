# expect: wrong
# rule: transaction-age: the cut-off computed in Python with a naive datetime.now() (local wall time) - right only when the process's local time zone equals the session's
from datetime import datetime, timedelta


def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    cutoff = datetime.now() - timedelta(seconds=older_than_s)
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < %s
        ORDER BY xact_start""", (cutoff,))
    return [pid for (pid,) in rows]
