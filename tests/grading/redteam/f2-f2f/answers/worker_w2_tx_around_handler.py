# exercise: 12.booking_worker
# expect: wrong
# rule: no-transaction: claim, handler and ack/retry all in one transaction (the provider is called with the claim uncommitted)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    with conn.transaction():
        job = queue.claim_one(conn, lease_s=lease_s)
        if job is None:
            return None
        try:
            with conn.transaction():
                handler(job, conn)
        except PermanentError as error:
            queue.bury(conn, job, "permanent", error)
        except Exception as error:
            if job.attempts >= job.max_attempts:
                queue.bury(conn, job, "max_attempts", error)
            else:
                delay = max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0)
                queue.retry(conn, job, delay, error)
        else:
            queue.ack(conn, job)
        return job.id
