def enqueue_job(conn, job_type, payload):
    job_id = queue.enqueue(conn, job_type, payload, queue=BULK)
    if IMPACT[job_type].late_after_s <= URGENT_WITHIN_S:
        conn.execute("UPDATE jobs SET queue = %s WHERE id = %s", [URGENT, job_id])
    return job_id
