# wrong (exactly-one: a crash after the mark): marks the booking processed and commits, then sends: a crash in between sends none
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [f"confirm:{booking_id}"]).rowcount:
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}")
