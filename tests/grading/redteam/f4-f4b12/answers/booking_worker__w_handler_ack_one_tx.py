# WRONG (no-transaction): the handler and its ack in one transaction, "so the ack commits with the
# handler's writes": the provider is called with the worker's transaction open.
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        with conn.transaction():
            handler(job, conn)
            queue.ack(conn, job)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", error)
        else:
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0),
                        error)
    return job.id
