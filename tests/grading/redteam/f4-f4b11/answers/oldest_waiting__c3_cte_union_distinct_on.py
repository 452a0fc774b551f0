# expect: correct
# rule: correct: a CTE that UNIONs the due jobs and the tried ones, DISTINCT ON the oldest due_at per queue
def oldest_waiting(conn):
    """{queue: seconds since its oldest unfinished, due-or-tried job became due}."""
    query = """
        WITH waited_for AS (
            SELECT id, queue, due_at FROM jobs WHERE run_at <= now()
            UNION
            SELECT id, queue, due_at FROM jobs WHERE attempts >= 1
        ), oldest AS (
            SELECT DISTINCT ON (queue) queue, due_at FROM waited_for ORDER BY queue, due_at
        )
        SELECT o.queue AS q, EXTRACT(EPOCH FROM (now() - o.due_at)) AS secs FROM oldest o
    """
    out = {}
    for row in conn.execute(query).fetchall():
        out[row[0]] = float(row[1])
    return out
