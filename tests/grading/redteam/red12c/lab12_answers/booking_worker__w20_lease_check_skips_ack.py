# wrong (ack-after / adversarial): re-reads the job after the send and acks only if its run_at is still in
# the future, by id; between the read and the delete another worker may take it over
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
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra or 0), error)
    else:
        still_mine = conn.execute("SELECT lease_token = %s FROM jobs WHERE id = %s",
                                  [job.lease_token, job.id]).fetchone()
        if still_mine and still_mine[0]:
            conn.execute("DELETE FROM jobs WHERE id = %s", [job.id])
    return job.id
