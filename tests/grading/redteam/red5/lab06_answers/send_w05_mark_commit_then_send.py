# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: exactly-one (marked and committed before sending)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                    [f"confirm:{booking_id}"]).rowcount:
        to, subject, body = confirmation_email(conn, booking_id)
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
