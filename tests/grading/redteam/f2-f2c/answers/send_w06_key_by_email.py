# WRONG (key-names-the-effect): the key names the guest's address, not the booking: a guest with two
# bookings gets one email
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{to}")
