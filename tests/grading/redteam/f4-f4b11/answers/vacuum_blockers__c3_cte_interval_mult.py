# expect: correct
# rule: correct: a CTE with named columns, interval multiplication, NOT (both null), ORDER BY age DESC
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    query = """
        WITH sessions AS (
            SELECT pid, now() - xact_start AS xact_age,
                   NOT (backend_xmin IS NULL AND backend_xid IS NULL) AS pins_rows
            FROM pg_stat_activity
            WHERE datname = current_database() AND pid != pg_backend_pid()
        )
        SELECT pid FROM sessions
        WHERE pins_rows AND xact_age > %(limit)s * interval '1 second'
        ORDER BY xact_age DESC
    """
    return [r[0] for r in conn.execute(query, {"limit": older_than_s}).fetchall()]
