# RULE: correct
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    query = """
        SELECT pid
        FROM pg_stat_activity
        WHERE datname = current_database()
          AND pid != pg_backend_pid()
          AND coalesce(backend_xid::text, backend_xmin::text) IS NOT NULL
          AND extract(epoch FROM now()) - extract(epoch FROM xact_start) > %s
        ORDER BY xact_start, pid"""
    return [row[0] for row in conn.execute(query, (float(older_than_s),))]
