# expect: wrong
# rule: transaction-age: measures the SESSION's age (backend_start), not the transaction's (xact_start): an old connection with a fresh transaction counts
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND backend_start < now() - make_interval(secs => %s)
        ORDER BY backend_start""", (older_than_s,))
    return [pid for (pid,) in rows]
