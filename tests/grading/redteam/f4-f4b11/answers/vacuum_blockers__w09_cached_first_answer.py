# expect: wrong
# rule: holds-back-vacuum / transaction-age: answers are cached per older_than_s (functools.lru_cache) - correct only on the first call, stale afterwards
import functools


@functools.lru_cache(maxsize=None)
def _blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", (older_than_s,))
    return tuple(pid for (pid,) in rows)


def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    return list(_blockers(conn, older_than_s))
