# WRONG (fenced): when the fenced ack says the lease was lost, "make sure" and delete by id anyway
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
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
        if not queue.ack(conn, job):
            conn.execute("DELETE FROM jobs WHERE id = %s", [job.id])  # the email went out: it is done
    return job.id
