# EXERCISE: 09.route
# EXPECT: wrong
# RULE: by-impact (a type added later)
ROUTES = {
    "send_confirmation_email": URGENT,
    "send_password_reset": URGENT,
    "sync_channel_manager": URGENT,
}

def enqueue_job(conn, job_type, payload):
    if job_type not in IMPACT:
        raise ValueError(job_type)
    return queue.enqueue(conn, job_type, payload, queue=ROUTES.get(job_type, BULK))
