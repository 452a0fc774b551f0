# exercise: 12.booking_worker
# expect: wrong
# rule: retry: a failure other than permanent is swallowed, the job left to its lease running out
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except PermanentError as error:
        queue.bury(conn, job, "permanent", error)
    except Exception as error:
        print(f"job {job.id} failed: {error}")
    else:
        queue.ack(conn, job)
    return job.id
