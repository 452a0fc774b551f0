# correct: StayHub's two layers: a processed row in the send's transaction, and the key
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key]).rowcount == 0:
            return "already sent"
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=key)
    return "sent"
