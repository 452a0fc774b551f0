# expect: wrong
# rule: oldest-first: filters on xact_start but sorts by query_start (the last statement): a session that began first but ran a statement since comes out later
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY query_start""", (older_than_s,))
    return [pid for (pid,) in rows]
