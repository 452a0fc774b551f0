# kind: correct
# rule: correct (StayHub's two layers: a processed row in the send's transaction, and the key)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    with conn.transaction():
        fresh = conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING RETURNING key",
                             [key]).fetchone()
        if fresh is None:
            return "already sent"
        to, subject, body = confirmation_email(conn, booking_id)
        return send_email(provider_url(), to, subject, body, idempotency_key=key)
