def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError(f"unclassified job type {job_type}")
    urgent = {"send_confirmation_email", "send_password_reset", "sync_channel_manager"}
    return queue.enqueue(conn, job_type, payload, queue=URGENT if job_type in urgent else BULK)
