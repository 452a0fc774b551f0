# wrong (by-impact, units): compares minutes with URGENT_WITHIN_S, which is seconds
def enqueue_job(conn, job_type, payload):
    late_min = IMPACT[job_type].late_after_s / 60
    return queue.enqueue(conn, job_type, payload, queue=URGENT if late_min <= URGENT_WITHIN_S else BULK)
