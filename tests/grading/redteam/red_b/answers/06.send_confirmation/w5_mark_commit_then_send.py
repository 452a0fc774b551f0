# kind: wrong
# rule: exactly-one (processed row committed before the send, no key: a crash between loses the email)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                    [f"confirm:{booking_id}"]).rowcount:
        send_email(provider_url(), *confirmation_email(conn, booking_id))
