# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: exactly-one (SELECT processed, send without a key, then mark)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
        return
    send_email(provider_url(), *confirmation_email(conn, booking_id))
    conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
