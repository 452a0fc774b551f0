# expect: wrong
# rule: holds-back-vacuum: leaves out sessions waiting for a lock ("victims, not culprits"), though a waiting session with an old snapshot or write holds back vacuum all the same
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND wait_event_type IS DISTINCT FROM 'Lock'
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", (older_than_s,))
    return [pid for (pid,) in rows]
