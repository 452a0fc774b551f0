# correct: .get, a ValueError of its own, the comparison written the other way round
def enqueue_job(conn, job_type, payload):
    impact = IMPACT.get(job_type)
    if impact is None:
        raise ValueError(f"nobody has classified {job_type!r}: add it to IMPACT first")
    late = impact.late_after_s
    name = BULK if late > URGENT_WITHIN_S else URGENT
    job_id = queue.enqueue(conn, job_type, payload, queue=name)
    return job_id
