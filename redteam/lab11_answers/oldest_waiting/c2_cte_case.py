# expect: correct
# rule: correct (a CTE that labels each job, then filters the waited-for ones)
def oldest_waiting(conn):
    rows = conn.execute("""
        WITH labelled AS (
            SELECT queue, due_at,
                   CASE WHEN run_at <= now() THEN true        -- ready, or left by a dead worker
                        WHEN attempts >= 1 THEN true          -- running, or waiting for its retry
                        ELSE false END AS waited_for
            FROM jobs)
        SELECT queue, EXTRACT(EPOCH FROM (now() - MIN(due_at)))
        FROM labelled WHERE waited_for GROUP BY queue""").fetchall()
    return {queue: float(seconds) for queue, seconds in rows}
