def vacuum_blockers(conn, older_than_s):
    return [r[0] for r in conn.execute("""
        WITH mine AS (
            SELECT a.pid, a.xact_start, coalesce(a.backend_xid::text, a.backend_xmin::text) AS pin
            FROM pg_stat_activity AS a
            WHERE a.datname = current_database() AND a.pid IS DISTINCT FROM pg_backend_pid())
        SELECT pid FROM mine
        WHERE pin IS NOT NULL AND extract(epoch FROM clock_timestamp() - xact_start) > %s
        ORDER BY xact_start ASC, pid""", [older_than_s])]
