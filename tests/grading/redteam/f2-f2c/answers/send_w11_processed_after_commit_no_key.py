# WRONG (exactly-one / key): a SELECT on processed, send without a key, mark after
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
        return
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body)
    conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
