# RULE: refuse-unknown (nothing stored): enqueues first, then looks the type up
def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    job_id = queue.enqueue(conn, job_type, payload, queue=BULK)
    late = IMPACT[job_type].late_after_s          # KeyError for an unknown type, after the insert
    if late <= URGENT_WITHIN_S:
        conn.execute("UPDATE jobs SET queue = %s WHERE id = %s", [URGENT, job_id])
    return job_id
