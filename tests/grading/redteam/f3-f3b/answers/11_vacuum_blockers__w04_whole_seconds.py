# RULE: transaction-age: the age truncated to whole seconds: 2.9 s is not older than 2.5 s
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND extract(epoch FROM now() - xact_start)::int > %s
        ORDER BY xact_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
