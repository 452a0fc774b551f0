# EXERCISE: 06.send_confirmation
# EXPECT: correct
# RULE: correct (StayHub's two layers: a processed row and the key, one transaction)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING RETURNING key", [key]).fetchone():
            send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=key)
