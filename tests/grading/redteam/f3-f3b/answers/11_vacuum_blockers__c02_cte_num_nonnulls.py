# RULE: correct
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    with conn.cursor() as cur:
        cur.execute("""
            WITH s AS (
                SELECT a.pid, a.xact_start, now() - a.xact_start AS open_for
                FROM pg_stat_activity AS a
                WHERE a.datname = current_database()
                  AND a.pid <> pg_backend_pid()
                  AND num_nonnulls(a.backend_xmin, a.backend_xid) > 0
            )
            SELECT pid FROM s
            WHERE open_for > make_interval(secs => %(limit)s)
            ORDER BY xact_start ASC""", {"limit": older_than_s})
        return [pid for (pid,) in cur.fetchall()]
