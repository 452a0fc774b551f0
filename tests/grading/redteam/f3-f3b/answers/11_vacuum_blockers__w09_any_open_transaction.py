# RULE: holds-back-vacuum: every open transaction, including an idle READ COMMITTED reader that holds nothing
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND xact_start IS NOT NULL
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
