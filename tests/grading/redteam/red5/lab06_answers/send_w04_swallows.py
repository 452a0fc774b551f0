# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: propagate (errors swallowed)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        print(f"booking {booking_id}: the provider said {error}")
