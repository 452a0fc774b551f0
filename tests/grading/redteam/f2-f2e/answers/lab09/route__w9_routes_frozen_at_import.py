ROUTES = {t: (URGENT if i.late_after_s <= URGENT_WITHIN_S else BULK) for t, i in IMPACT.items()}


def enqueue_job(conn, job_type, payload):
    return queue.enqueue(conn, job_type, payload, queue=ROUTES[job_type])
