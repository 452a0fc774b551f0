# wrong | per-queue (only the queues seen in the demo)
def oldest_waiting(conn):
    out = {}
    for q in ("default", "newsletter"):
        row = conn.execute("""
            SELECT EXTRACT(EPOCH FROM now() - min(due_at))::float8
            FROM jobs WHERE queue = %s AND (run_at <= now() OR attempts > 0)""", [q]).fetchone()
        if row[0] is not None:
            out[q] = row[0]
    return out
