# WRONG (propagate): a rejection is treated as "already sent" and swallowed
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except EmailRejected:
        pass
