# correct
def vacuum_blockers(conn, older_than_s):
    q = """
    WITH sessions AS (
        SELECT a.pid, a.xact_start, extract(epoch FROM now() - a.xact_start) AS age_s,
               coalesce(a.backend_xmin::text, a.backend_xid::text) AS pins
        FROM pg_stat_activity a
        WHERE a.datname = current_database()
    )
    SELECT pid FROM sessions
    WHERE pins IS NOT NULL AND age_s > %(age)s AND pid != pg_backend_pid()
    ORDER BY xact_start ASC, pid
    """
    return [pid for (pid,) in conn.execute(q, {"age": older_than_s})]
