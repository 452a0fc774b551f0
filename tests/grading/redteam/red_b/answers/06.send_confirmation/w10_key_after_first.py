# kind: wrong
# rule: key-names-the-effect (adversarial: no key on the first attempt, the key only on retries)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}" if job.attempts > 1 else None
    send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=key)
