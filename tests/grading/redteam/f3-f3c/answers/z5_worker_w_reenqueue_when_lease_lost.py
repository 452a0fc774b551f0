# exercise: 12.booking_worker
# cell: 32f94885
# rule: fenced (when its ack finds the lease gone, it enqueues a fresh copy "so nothing is lost": a stale worker adds a second job for one email)
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
            queue.enqueue(conn, job.type, job.payload, queue=job.queue, priority=job.priority,
                          max_attempts=job.max_attempts)
    return job.id
