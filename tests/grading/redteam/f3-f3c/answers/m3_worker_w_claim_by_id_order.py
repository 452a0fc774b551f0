# exercise: 12.booking_worker
# cell: 32f94885
# rule: returns (claims the oldest id, not the most urgent: priority and run_at ignored)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    row = conn.execute("""
        UPDATE jobs SET run_at = now() + make_interval(secs => %(lease)s), lease_token = gen_random_uuid(),
                        attempts = attempts + 1
        WHERE id = (SELECT id FROM jobs WHERE queue = 'default' AND run_at <= now()
                    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, queue, type, payload, priority, attempts, max_attempts, lease_token, run_at
    """, {"lease": lease_s}).fetchone()
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
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0),
                        error)
    else:
        queue.ack(conn, job)
    return job.id
