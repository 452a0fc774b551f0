# wrong (no-transaction): claim, send and ack in one transaction, "so a crash rolls everything back"
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    with conn.transaction():
        job = queue.claim_one(conn, lease_s=lease_s)
        if job is None:
            return None
        try:
            with conn.transaction():  # a savepoint: the handler's failure does not undo the claim
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
