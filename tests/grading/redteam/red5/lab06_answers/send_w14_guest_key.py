# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: key-names-the-effect (the guest's name)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    guest = conn.execute("SELECT guest FROM bookings WHERE id = %s", [booking_id]).fetchone()[0]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{guest}")
