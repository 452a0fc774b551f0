# wrong (key-names-the-effect): the job's id in the key: the same booking enqueued twice sends twice
def send_confirmation(job, conn):
    send_email(provider_url(), *confirmation_email(conn, job.payload["booking_id"]), idempotency_key=f"confirm:{job.id}")
