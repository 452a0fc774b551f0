# wrong (exactly-one after a failed first attempt): a retry assumes the first attempt sent it
def send_confirmation(job, conn):
    if job.attempts > 1:
        return
    booking_id = job.payload["booking_id"]
    send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}")
