# expect: wrong
# rule: per-queue (only the single oldest job's queue)
def oldest_waiting(conn):
    row = conn.execute("""SELECT queue, extract(epoch FROM now() - due_at)::float8
        FROM jobs WHERE run_at <= now() OR attempts > 0 ORDER BY due_at LIMIT 1""").fetchone()
    return {row[0]: row[1]} if row else {}
