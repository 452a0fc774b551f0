# RULE: by-impact: the urgent types are listed by name (today's answer, not a rule)
URGENT_TYPES = {"send_confirmation_email", "send_password_reset", "sync_channel_manager"}

def enqueue_job(conn, job_type, payload):
    """Enqueue a job on the queue its business impact calls for; return the job's id."""
    if job_type not in IMPACT:
        raise KeyError(job_type)
    return queue.enqueue(conn, job_type, payload, queue=URGENT if job_type in URGENT_TYPES else BULK)
