# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: exactly-one (a second send with another key, 'to be sure')
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    if job.attempts > 1:   # a retry: the first send may have been lost, send a fresh one
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}:resend")
