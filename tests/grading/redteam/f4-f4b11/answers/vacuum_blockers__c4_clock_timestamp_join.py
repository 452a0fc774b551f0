# expect: correct
# rule: correct: ages against clock_timestamp() (the wall clock now, not the transaction's start), own pid and database through a join on pg_database
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT s.pid
        FROM pg_stat_activity s
        JOIN pg_database d ON d.oid = s.datid
        WHERE d.datname = current_database()
          AND s.pid <> (SELECT pg_backend_pid())
          AND coalesce(s.backend_xid::text, s.backend_xmin::text) IS NOT NULL
          AND extract(epoch FROM clock_timestamp() - s.xact_start) > %s
        ORDER BY s.xact_start ASC, s.pid""", [older_than_s])
    return [int(r[0]) for r in rows]
