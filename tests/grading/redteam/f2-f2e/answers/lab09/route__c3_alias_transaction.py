from course.core.queue import enqueue as put


def enqueue_job(conn, job_type, payload):
    with conn.transaction():
        impact = IMPACT.get(job_type) or (_ for _ in ()).throw(KeyError(job_type))
        target = BULK if impact.late_after_s > URGENT_WITHIN_S else URGENT
        new_id = put(conn, job_type, payload, queue=target)
    return new_id
