# correct: the claim, ack and retry written in SQL (one statement each), bury from the queue
CLAIM = """
WITH pick AS (
    SELECT id FROM jobs
    WHERE queue = 'default' AND run_at <= now()
    ORDER BY priority DESC, run_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
UPDATE jobs AS j
SET attempts = j.attempts + 1,
    lease_token = gen_random_uuid(),
    run_at = now() + make_interval(secs => %(lease)s)
FROM pick WHERE j.id = pick.id
RETURNING j.id, j.queue, j.type, j.payload, j.priority, j.attempts, j.max_attempts, j.lease_token,
          j.run_at
"""


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    row = conn.execute(CLAIM, {"lease": lease_s}).fetchone()
    if row is None:
        return None
    job = queue.Job(*row)
    try:
        handler(job, conn)
    except Exception as failure:
        if isinstance(failure, PermanentError) or job.attempts >= job.max_attempts:
            queue.bury(conn, job, "permanent" if isinstance(failure, PermanentError) else "max_attempts", failure)
            return job.id
        wait = queue.backoff_delay(job.attempts)
        hint_s = getattr(failure, "retry_after_s", None) or 0
        conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), lease_token = NULL, "
                     "last_error = %s WHERE id = %s AND lease_token = %s",
                     [max(wait, hint_s), f"{type(failure).__name__}: {failure}", job.id, job.lease_token])
        return job.id
    conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job.id, job.lease_token])
    return job.id
