# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: propagate (arguable: a RuntimeError instead of the provider's error)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        raise RuntimeError(f"confirmation for booking {booking_id} failed: {error}") from None
