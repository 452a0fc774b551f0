# wrong | transaction-age (integer seconds: 2.5 s treated as 2)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND extract(epoch FROM now() - xact_start)::int > %s
        ORDER BY xact_start""", [int(older_than_s)]).fetchall()
    return [r[0] for r in rows]
