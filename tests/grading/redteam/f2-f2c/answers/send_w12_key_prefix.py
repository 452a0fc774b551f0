# WRONG (key-names-the-effect, arguable): a key that names the booking, but not `confirm:<id>`
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"booking-{booking_id}")
