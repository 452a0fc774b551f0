def enqueue_job(conn, job_type, payload):
    IMPACT[job_type]  # refuse unknown types
    q = URGENT if job_type.startswith("send_") and "newsletter" not in job_type else BULK
    if job_type == "sync_channel_manager":
        q = URGENT
    return queue.enqueue(conn, job_type, payload, queue=q)
