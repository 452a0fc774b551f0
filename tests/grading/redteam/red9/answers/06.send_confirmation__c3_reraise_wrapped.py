# correct: catches the provider's error only to log it, and raises it again; the key built by concatenation
def send_confirmation(job, conn):
    booking_id = int(job.payload["booking_id"])
    email = confirmation_email(conn, booking_id)
    try:
        return send_email(provider_url(), email[0], email[1], email[2], idempotency_key="confirm:" + str(booking_id))
    except Exception as error:
        print(f"booking {booking_id}: the provider said {error}; the worker will retry")
        raise
