# WRONG (exactly-one): only the processed row, sent inside its transaction, and no idempotency key
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                        [f"confirm:{booking_id}"]).rowcount:
            send_email(provider_url(), *confirmation_email(conn, booking_id))
