# wrong (race: store-as-given / by-impact): enqueues, then moves "the last job" with max(id): another session's job in between is moved instead
def enqueue_job(conn, job_type, payload):
    target = URGENT if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S else BULK
    queue.enqueue(conn, job_type, payload)
    return conn.execute("UPDATE jobs SET queue = %s WHERE id = (SELECT max(id) FROM jobs) RETURNING id",
                        [target]).fetchone()[0]
