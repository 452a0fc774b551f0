# wrong (returns: most urgent): a hand-written one-statement claim ordered by id only: priority and due time ignored
CLAIM = """
UPDATE jobs SET attempts = attempts + 1, lease_token = gen_random_uuid(),
                run_at = now() + make_interval(secs => %(lease)s)
WHERE id = (SELECT id FROM jobs WHERE run_at <= now() ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
RETURNING id, queue, type, payload, priority, attempts, max_attempts, lease_token, run_at
"""


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    row = conn.execute(CLAIM, {"lease": lease_s}).fetchone()
    if row is None:
        return None
    job = queue.Job(*row)
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
