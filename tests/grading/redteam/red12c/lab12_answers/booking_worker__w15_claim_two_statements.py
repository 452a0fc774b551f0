# wrong (one-at-a-time): picks the job with SKIP LOCKED in autocommit (the lock ends with the statement),
# then leases it in a second statement: two workers can pick the same job
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    row = conn.execute("SELECT id FROM jobs WHERE run_at <= now() ORDER BY priority DESC, run_at, id "
                       "LIMIT 1 FOR UPDATE SKIP LOCKED").fetchone()
    if row is None:
        return None
    got = conn.execute(
        "UPDATE jobs SET attempts = attempts + 1, lease_token = gen_random_uuid(), "
        "run_at = now() + make_interval(secs => %s) WHERE id = %s "
        "RETURNING id, queue, type, payload, priority, attempts, max_attempts, lease_token, run_at",
        [lease_s, row[0]]).fetchone()
    job = queue.Job(*got)
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
