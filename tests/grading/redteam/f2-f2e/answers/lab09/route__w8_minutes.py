def enqueue_job(conn, job_type, payload):
    # late_after_s compared in minutes against the 2-minute limit
    minutes = IMPACT[job_type].late_after_s / 60
    q = URGENT if minutes <= URGENT_WITHIN_S else BULK
    return queue.enqueue(conn, job_type, payload, queue=q)
