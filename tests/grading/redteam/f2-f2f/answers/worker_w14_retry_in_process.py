# exercise: 12.booking_worker
# expect: wrong
# rule: retry: on a transient failure it waits the backoff in-process and runs the handler again at once (never hands the job back; attempts not counted)
def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    for tries in range(2):
        try:
            handler(job, conn)
        except PermanentError as error:
            queue.bury(conn, job, "permanent", error)
            return job.id
        except Exception as error:
            if tries == 1 or job.attempts >= job.max_attempts:
                if job.attempts >= job.max_attempts:
                    queue.bury(conn, job, "max_attempts", error)
                else:
                    queue.retry(conn, job, max(queue.backoff_delay(job.attempts),
                                               getattr(error, "retry_after_s", None) or 0), error)
                return job.id
            time.sleep(min(0.2, queue.backoff_delay(job.attempts)))
        else:
            queue.ack(conn, job)
            return job.id
