# expect: wrong
# rule: ours-only: "ours" read as the same user (usename = current_user) instead of the same database: the course's sessions in other databases are included
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE usename = current_user AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", (older_than_s,))
    return [pid for (pid,) in rows]
