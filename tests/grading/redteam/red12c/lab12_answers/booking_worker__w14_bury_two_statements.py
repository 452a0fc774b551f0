# wrong (kill between statements): dead-letters by hand in two statements, delete then insert: killed
# between them, the job is in neither table
def _dead_letter(conn, job, reason, error):
    conn.execute("DELETE FROM jobs WHERE id = %s AND lease_token = %s", [job.id, job.lease_token])
    conn.execute("INSERT INTO dead_jobs (id, queue, type, payload, priority, attempts, max_attempts, created_at, "
                 "reason, error) VALUES (%s, %s, %s, %s, %s, %s, %s, now(), %s, %s)",
                 [job.id, job.queue, job.type, psycopg.types.json.Jsonb(job.payload), job.priority, job.attempts,
                  job.max_attempts, reason, f"{type(error).__name__}: {error}"])
    conn.execute("SELECT pg_notify('dead_jobs:' || current_schema(), %s)", [f"job {job.id} dead: {reason}"])


def work_one(conn, handler, lease_s=stayhub.LEASE_S):
    job = queue.claim_one(conn, lease_s=lease_s)
    if job is None:
        return None
    try:
        handler(job, conn)
    except PermanentError as error:
        _dead_letter(conn, job, "permanent", error)
    except Exception as error:
        if job.attempts >= job.max_attempts:
            _dead_letter(conn, job, "max_attempts", error)
        else:
            ra = getattr(error, "retry_after_s", None)
            queue.retry(conn, job, max(queue.backoff_delay(job.attempts), ra or 0), error)
    else:
        queue.ack(conn, job)
    return job.id
