# expect: correct
# rule: correct (a CTE with the age in seconds, compared as numbers)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        WITH sessions AS (
            SELECT pid, xact_start, extract(epoch FROM now() - xact_start) AS age_s
            FROM pg_stat_activity
            WHERE datname = current_database() AND pid != pg_backend_pid()
              AND coalesce(backend_xmin, backend_xid) IS NOT NULL)
        SELECT pid FROM sessions WHERE age_s > %(limit)s ORDER BY xact_start ASC""",
        {"limit": older_than_s}).fetchall()
    return [r[0] for r in rows]
