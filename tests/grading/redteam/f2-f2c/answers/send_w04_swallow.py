# WRONG (propagate): a provider error is printed and swallowed: the job is acked with no email
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        print(f"could not send the confirmation of booking {booking_id}: {error}")
