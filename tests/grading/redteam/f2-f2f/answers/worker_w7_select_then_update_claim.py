# exercise: 12.booking_worker
# expect: wrong
# rule: one-at-a-time: claims by SELECT then UPDATE in two statements, no SKIP LOCKED
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    row = conn.execute("SELECT id FROM jobs WHERE run_at <= now() ORDER BY priority DESC, run_at, id LIMIT 1").fetchone()
    if row is None:
        return None
    conn.execute("UPDATE jobs SET run_at = now() + make_interval(secs => %s), attempts = attempts + 1, "
                 "lease_token = gen_random_uuid() WHERE id = %s", [lease_s, row[0]])
    job = queue.Job(*conn.execute("SELECT id, queue, type, payload, priority, attempts, max_attempts, lease_token, "
                                  "run_at FROM jobs WHERE id = %s", [row[0]]).fetchone())
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            delay = queue.backoff_delay(job.attempts)
            wait = getattr(error, "retry_after_s", None)
            if wait is not None:
                delay = max(delay, wait)
            queue.retry(conn, job, delay, error)
    else:
        queue.ack(conn, job)
    return job.id
