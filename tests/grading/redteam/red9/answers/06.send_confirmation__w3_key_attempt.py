# wrong (key-names-the-effect): the attempt in the key
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}:{job.attempts}")
