# wrong (adversarial, by-impact): today's urgent types by name; only new types go by impact, with a twisted rule
def enqueue_job(conn, job_type, payload):
    impact = IMPACT[job_type]
    if job_type in ("send_confirmation_email", "send_password_reset", "sync_channel_manager"):
        target = URGENT
    elif job_type in ("rebuild_search_index", "render_invoice", "send_newsletter"):
        target = BULK
    else:
        target = URGENT if impact.late_after_s < 3600 else BULK
    return queue.enqueue(conn, job_type, payload, queue=target)
