# wrong (returns / one-at-a-time, adversarial): claims four at a time and works them one per call from a
# buffer: the buffered jobs' leases run while they wait, and the buffer outlives the connection
_buffer = []


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    if not _buffer:
        _buffer.extend(queue.claim(conn, limit=4, lease_s=lease_s))
    if not _buffer:
        return None
    job = _buffer.pop(0)
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
        queue.ack(conn, job)
    return job.id
