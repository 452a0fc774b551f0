# wrong (propagate): a provider error is logged and swallowed: the job is acked, the guest gets nothing
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    try:
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        print("could not send:", error)
