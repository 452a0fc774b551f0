# WRONG (exactly-one): the key only on a retry: the first attempt sends without one, so its re-run
# is not recognised
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    key = f"confirm:{booking_id}" if job.attempts > 1 else None
    send_email(provider_url(), to, subject, body, idempotency_key=key)
