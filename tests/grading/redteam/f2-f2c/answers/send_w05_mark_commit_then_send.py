# WRONG (exactly-one): the processed row commits before the send: a crash between them, or a failed
# send, and the retry stops at the row: no email ever
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key]).rowcount == 0:
        return
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=key)
