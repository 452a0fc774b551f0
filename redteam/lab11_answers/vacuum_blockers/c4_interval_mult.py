# expect: correct
# rule: correct (interval arithmetic with a multiplied interval, IN over a subquery of our database)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""
        SELECT a.pid FROM pg_stat_activity a
        JOIN pg_database d ON d.oid = a.datid AND d.datname = current_database()
        WHERE a.pid NOT IN (SELECT pg_backend_pid())
          AND (a.backend_xid IS NOT NULL OR a.backend_xmin IS NOT NULL)
          AND now() - a.xact_start > %s * interval '1 second'
        ORDER BY a.xact_start""", (older_than_s,)).fetchall()
    return [pid for (pid,) in rows]
