# exercise: 12.booking_worker
# cell: 32f94885
# rule: permanent (every failure goes through fail(..., permanent=False): a 422 is retried 8 times)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except Exception as error:
        floor = getattr(error, "retry_after_s", None) or 0.0
        queue.fail(conn, job, error, permanent=False,
                   backoff=lambda attempt: max(queue.backoff_delay(attempt), floor))
    else:
        queue.ack(conn, job)
    return job.id
