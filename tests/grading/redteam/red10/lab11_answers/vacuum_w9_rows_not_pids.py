# wrong | pids (returns rows of (pid, age))
def vacuum_blockers(conn, older_than_s):
    return conn.execute("""
        SELECT pid, now() - xact_start FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", [older_than_s]).fetchall()
