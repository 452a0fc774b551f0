# CORRECT: StayHub's two layers: the processed row and the send in one transaction, the key as well
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = "confirm:%d" % booking_id
    with conn.transaction():
        inserted = conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT (key) DO NOTHING RETURNING key",
                                (key,)).fetchone()
        if inserted is None:
            return "already sent"
        email = confirmation_email(conn, booking_id)
        send_email(provider_url(), email[0], email[1], email[2], idempotency_key=key)
    return "sent"
