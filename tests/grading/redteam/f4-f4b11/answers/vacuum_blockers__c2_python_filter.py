# expect: correct
# rule: correct: reads the candidate rows with now() and filters/sorts in Python (timedelta), IS DISTINCT FROM style
from datetime import timedelta


def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT a.pid, a.xact_start, now()
        FROM pg_stat_activity AS a
        WHERE a.datname = current_database()
          AND a.pid IS DISTINCT FROM pg_backend_pid()
          AND num_nonnulls(a.backend_xmin, a.backend_xid) > 0
          AND a.xact_start IS NOT NULL""").fetchall()
    limit = timedelta(seconds=older_than_s)
    old = [(started, pid) for pid, started, now in rows if now - started > limit]
    return [pid for started, pid in sorted(old)]
