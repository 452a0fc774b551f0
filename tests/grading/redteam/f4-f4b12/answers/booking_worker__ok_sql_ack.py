# correct, unlike the obvious: the fenced ack written as SQL (DELETE ... AND lease_token), the rest with
# the queue's pieces; the Retry-After floor with max().
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if not job:
        return None
    try:
        handler(job, conn)
        conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job.id, job.lease_token])
        return job.id
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0),
                        error)
    return job.id
