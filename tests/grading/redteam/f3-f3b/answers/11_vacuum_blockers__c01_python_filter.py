# RULE: correct
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    rows = conn.execute("""
        SELECT pid, extract(epoch FROM now() - xact_start)::float8 AS age_s,
               backend_xmin IS NOT NULL OR backend_xid IS NOT NULL AS pins,
               datname = current_database() AS here, pid = pg_backend_pid() AS me
        FROM pg_stat_activity
        WHERE xact_start IS NOT NULL""").fetchall()
    found = [(age, pid) for pid, age, pins, here, me in rows if pins and here and not me and age > older_than_s]
    return [pid for age, pid in sorted(found, key=lambda t: -t[0])]
