# wrong | transaction-age (query_start)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND query_start < now() - make_interval(secs => %s)
        ORDER BY query_start""", [older_than_s]).fetchall()
    return [r[0] for r in rows]
