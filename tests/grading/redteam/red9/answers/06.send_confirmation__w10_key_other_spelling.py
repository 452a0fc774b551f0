# wrong by spelling only (key-names-the-effect, but not "confirm:<id>"): a stable key that names the effect in other words
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"booking-{booking_id}-confirmation")
