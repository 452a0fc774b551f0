# exercise: 12.booking_worker
# cell: 32f94885
# rule: no-transaction (claim committed, then the handler and the ack in one transaction "so the ack is atomic with the send")
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
