def vacuum_blockers(conn, older_than_s):
    me, now = conn.execute("SELECT pg_backend_pid(), now()").fetchone()
    rows = conn.execute("SELECT pid, xact_start, backend_xmin, backend_xid FROM pg_stat_activity "
                        "WHERE datname = current_database()").fetchall()
    found = [(start, pid) for pid, start, xmin, xid in rows
             if pid != me and start is not None and (xmin is not None or xid is not None)
             and (now - start).total_seconds() > older_than_s]
    return [pid for _, pid in sorted(found)]
