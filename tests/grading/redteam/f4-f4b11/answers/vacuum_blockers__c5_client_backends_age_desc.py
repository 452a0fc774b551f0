# expect: correct
# rule: correct: client backends only, age(...) style with age in seconds computed in SQL, sorted by that age descending then pid
def vacuum_blockers(conn, older_than_s):
    """Pids of sessions whose transaction is older than older_than_s and holds back vacuum, oldest first."""
    found = conn.execute("""
        SELECT pid, extract(epoch FROM now() - xact_start) AS open_s
        FROM pg_stat_activity
        WHERE backend_type = 'client backend'
          AND datname = current_database()
          AND pid <> pg_backend_pid()
          AND (backend_xmin IS NOT NULL OR backend_xid IS NOT NULL)""").fetchall()
    old = [(float(open_s), pid) for pid, open_s in found if open_s is not None and float(open_s) > older_than_s]
    old.sort(key=lambda item: (-item[0], item[1]))
    return [pid for _, pid in old]
