# expect: wrong
# rule: transaction-age (the xmin's age in transactions, not seconds)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)
          AND greatest(age(backend_xmin), age(backend_xid)) > %s ORDER BY xact_start""", (older_than_s,)).fetchall()
    return [p for (p,) in rows]
