# exercise: 12.booking_worker
# cell: 32f94885
# rule: retry (sleeps up to 1 s and calls the handler again in-process before handing back: a second run sooner than backoff and Retry-After, attempts not counted)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    for tries_left in (1, 0):
        try:
            handler(job, conn)
        except PermanentError as error:
            queue.bury(conn, job, "permanent", error)
            return job.id
        except Exception as error:
            if tries_left:
                time.sleep(min(1.0, queue.backoff_delay(job.attempts)))
                continue
            if job.attempts >= job.max_attempts:
                queue.bury(conn, job, "max_attempts", error)
            else:
                queue.retry(conn, job, max(queue.backoff_delay(job.attempts),
                                           getattr(error, "retry_after_s", None) or 0), error)
            return job.id
        queue.ack(conn, job)
        return job.id
