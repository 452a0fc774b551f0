# expect: wrong
# rule: transaction-age (ignores older_than_s: a minute, always)
def vacuum_blockers(conn, older_than_s=60):
    rows = conn.execute("""SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND xact_start < now() - interval '60 seconds' ORDER BY xact_start""").fetchall()
    return [p for (p,) in rows]
