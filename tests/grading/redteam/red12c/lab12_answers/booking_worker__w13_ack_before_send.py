# wrong (ack-after): acks first "so a slow provider cannot make the job run twice": killed during the send, the email is lost
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    queue.ack(conn, job)
    try:
        handler(job, conn)
    except Exception as error:
        # put it back for another go
        queue.enqueue(conn, job.type, job.payload, max_attempts=job.max_attempts)
        raise
    return job.id
