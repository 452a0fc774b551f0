# CORRECT: SELECT the processed row, send with the key, record the send after it (a re-run asks the
# provider again with the same key, which is harmless)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone() is None:
        to, subject, body = confirmation_email(conn, booking_id)
        send_email(provider_url(), to, subject, body, idempotency_key=key)
        conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
