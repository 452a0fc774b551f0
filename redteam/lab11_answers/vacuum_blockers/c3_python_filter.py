# expect: correct
# rule: correct (reads the sessions, filters and sorts in Python against the server's clock)
def vacuum_blockers(conn, older_than_s):
    rows = conn.execute("""SELECT pid, xact_start, backend_xmin, backend_xid, now(), pg_backend_pid(),
                                  datname = current_database()
                           FROM pg_stat_activity""").fetchall()
    found = []
    for pid, started, xmin, xid, now, me, ours in rows:
        if not ours or pid == me or started is None:
            continue
        if xmin is None and xid is None:
            continue
        if (now - started).total_seconds() > older_than_s:
            found.append((started, pid))
    return [pid for started, pid in sorted(found)]
