# expect: wrong
# rule: holds-back-vacuum (every idle-in-transaction session, whether it holds anything or not)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND state = 'idle in transaction'
          AND xact_start < now() - make_interval(secs => %s) ORDER BY xact_start""", (older_than_s,)).fetchall()
    return [p for (p,) in rows]
