# WRONG (returns: "the most urgent ready job"): the SQL claim orders by run_at only, forgetting the
# priority: a high-priority job waits behind every older one.
CLAIM = """
WITH next AS (
    SELECT id FROM jobs
    WHERE queue = 'default' AND run_at <= now()
    ORDER BY run_at, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED
)
UPDATE jobs
SET run_at = now() + make_interval(secs => %(lease_s)s), lease_token = gen_random_uuid(),
    attempts = jobs.attempts + 1, claimed_at = now()
FROM next
WHERE jobs.id = next.id
RETURNING jobs.id, jobs.queue, jobs.type, jobs.payload, jobs.priority, jobs.attempts, jobs.max_attempts,
          jobs.lease_token, jobs.run_at
"""


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    row = conn.execute(CLAIM, {"lease_s": lease_s}).fetchone()
    if row is None:
        return None
    job = queue.Job(*row)
    try:
        handler(job, conn)
    except Exception as error:
        if isinstance(error, PermanentError):
            queue.bury(conn, job, "permanent", error)
        elif job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            wait = queue.backoff_delay(job.attempts)
            retry_after = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, wait if retry_after is None else max(wait, retry_after), error)
    else:
        queue.ack(conn, job)
    return job.id
