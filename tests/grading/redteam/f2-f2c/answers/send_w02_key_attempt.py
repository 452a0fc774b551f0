# WRONG (key-names-the-effect): the key names the attempt
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}:{job.attempts}")
