# expect: wrong
# rule: ours-only: leaves out "my own session" by application_name, which also drops every other session with the same (often empty) name
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database()
          AND application_name <> current_setting('application_name')
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - make_interval(secs => %s)
        ORDER BY xact_start""", (older_than_s,))
    return [pid for (pid,) in rows]
