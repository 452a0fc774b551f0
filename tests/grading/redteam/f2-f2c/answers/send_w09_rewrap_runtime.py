# WRONG (propagate): every provider error rewrapped as a RuntimeError (a refusal for good becomes
# something the queue retries)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        raise RuntimeError(f"confirmation of booking {booking_id} failed: {error}")
