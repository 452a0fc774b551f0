# EXERCISE: 09.route
# EXPECT: correct
# RULE: correct (helper function, explicit transaction)
def queue_for(job_type):
    try:
        late_after_s = IMPACT[job_type].late_after_s
    except KeyError:
        raise KeyError(f"unclassified job type: {job_type}") from None
    return BULK if late_after_s > URGENT_WITHIN_S else URGENT

def enqueue_job(conn, job_type, payload):
    target = queue_for(job_type)
    with conn.transaction():
        job_id = queue.enqueue(conn, job_type, payload, queue=target)
    return job_id
