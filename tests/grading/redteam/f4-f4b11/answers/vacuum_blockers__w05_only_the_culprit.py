# expect: wrong
# rule: holds-back-vacuum / oldest-first: returns only the oldest one (LIMIT 1, "find THE culprit"); a second blocker goes unseen
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    row = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start LIMIT 1""", (older_than_s,)).fetchone()
    return [row[0]] if row else []
