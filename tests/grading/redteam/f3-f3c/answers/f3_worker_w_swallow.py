# exercise: 12.booking_worker
# cell: 32f94885
# rule: retry (a failure is logged and left: no retry recorded, the job waits out its 60 s lease with no error stored)
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
            print(f"job {job.id} failed ({error}); its lease will bring it back")
    else:
        queue.ack(conn, job)
    return job.id
