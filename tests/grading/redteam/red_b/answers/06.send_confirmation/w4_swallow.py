# kind: wrong
# rule: propagate (a refused send is logged and swallowed: the job is acked, no email ever)
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        print(f"booking {booking_id}: email not sent: {error}")
