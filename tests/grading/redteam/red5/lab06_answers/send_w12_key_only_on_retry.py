# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: key-names-the-effect (key only from attempt 2)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    key = f"confirm:{booking_id}" if job.attempts > 1 else None
    send_email(provider_url(), to, subject, body, idempotency_key=key)
