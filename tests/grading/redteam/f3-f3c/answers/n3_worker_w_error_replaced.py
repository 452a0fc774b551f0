# exercise: 12.booking_worker
# cell: 32f94885
# rule: retry / poison (stores its own text instead of the error: "send failed, will retry" / "gave up")
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except PermanentError:
        queue.bury(conn, job, "permanent", "invalid address")
    except Exception as error:
        if job.attempts >= job.max_attempts:
            queue.bury(conn, job, "max_attempts", f"gave up after {job.attempts} attempts")
        else:
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), getattr(error, "retry_after_s", None) or 0),
                        "send failed, will retry")
    else:
        queue.ack(conn, job)
    return job.id
