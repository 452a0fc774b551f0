# exercise: 12.booking_worker
# cell: 32f94885
# rule: ack-after (acks first "so a slow provider never makes a second worker send it too", then works it)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    queue.ack(conn, job)
    try:
        handler(job, conn)
    except Exception as error:
        print(f"job {job.id} failed after its ack: {error}")
    return job.id
