# expect: wrong
# rule: transaction-age: older_than_s truncated to whole seconds (int()), so with 2.5 a transaction open 2.2 s is reported
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute(f"""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - interval '{int(older_than_s)} seconds'
        ORDER BY xact_start""")
    return [pid for (pid,) in rows]
