# EXERCISE: 09.route
# EXPECT: wrong
# RULE: refuse-unknown (nothing is stored)
def enqueue_job(conn, job_type, payload):
    job_id = queue.enqueue(conn, job_type, payload, queue=BULK)
    impact = IMPACT[job_type]
    if impact.late_after_s <= URGENT_WITHIN_S:
        conn.execute("UPDATE jobs SET queue = %s WHERE id = %s", [URGENT, job_id])
    return job_id
