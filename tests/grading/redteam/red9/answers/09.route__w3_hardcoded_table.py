# wrong (by-impact): the six types of today written out by hand; a type added to IMPACT later goes to bulk
ROUTES = {"send_confirmation_email": URGENT, "send_password_reset": URGENT, "sync_channel_manager": URGENT,
          "rebuild_search_index": BULK, "render_invoice": BULK, "send_newsletter": BULK}

def enqueue_job(conn, job_type, payload):
    IMPACT[job_type]
    return queue.enqueue(conn, job_type, payload, queue=ROUTES.get(job_type, BULK))
