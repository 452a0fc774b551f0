# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: propagate (three tries in the handler, then silence)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    for _ in range(3):
        try:
            send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
            return
        except Exception:
            time.sleep(0.1)
