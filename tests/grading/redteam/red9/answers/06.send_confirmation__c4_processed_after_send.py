# correct: a processed row written after the send, in its own commit: a re-run that finds it stops; one that does not asks the provider again with the same key
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
        return
    send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=key)
    conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
