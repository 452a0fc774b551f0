# wrong (propagate): retries in the handler three times, then returns quietly
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    email = confirmation_email(conn, booking_id)
    for _ in range(3):
        try:
            send_email(provider_url(), *email, idempotency_key=f"confirm:{booking_id}")
            return
        except Exception:
            time.sleep(0.05)
