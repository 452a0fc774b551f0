# wrong (by-impact, a type added later): the routes computed once, when the cell ran
_ROUTE = {name: (URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK) for name, impact in IMPACT.items()}

def enqueue_job(conn, job_type, payload):
    return queue.enqueue(conn, job_type, payload, queue=_ROUTE[job_type])
