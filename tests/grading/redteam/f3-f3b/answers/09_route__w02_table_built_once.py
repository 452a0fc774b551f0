# RULE: by-impact (a type added to IMPACT later): the routing table is computed once, when the cell runs
ROUTES = {name: (URGENT if impact.late_after_s <= URGENT_WITHIN_S else BULK) for name, impact in IMPACT.items()}

def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    if job_type not in ROUTES:
        raise ValueError(f"nobody has classified {job_type!r} yet")
    return queue.enqueue(conn, job_type, payload, queue=ROUTES[job_type])
