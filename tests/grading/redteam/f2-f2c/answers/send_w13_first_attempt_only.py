# WRONG (adversarial: works on the first attempt only): a retry is assumed to be a duplicate
def send_confirmation(job, conn):
    if job.attempts > 1:
        return
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
