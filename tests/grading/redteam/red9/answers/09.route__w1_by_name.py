# wrong (by-impact): routes by the type's name: anything that sends something is urgent
def enqueue_job(conn, job_type, payload):
    IMPACT[job_type]  # refuse unknown types
    target = URGENT if job_type.startswith("send_") or "sync" in job_type else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
