# WRONG (returns: "claim the most urgent ready job"): claims a batch of 4 "to save round trips" and works
# only the first: the other three sit leased for lease_s seconds, their attempts counted, never run.
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    jobs = queue.claim(conn, limit=4, lease_s=lease_s)
    if not jobs:
        return None
    job = jobs[0]
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
        queue.ack(conn, job)
    return job.id
