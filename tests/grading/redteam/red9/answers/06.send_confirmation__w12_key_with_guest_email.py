# wrong (key-names-the-effect: adversarial): the key is the guest's address: two bookings by one guest get one email
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{to}")
