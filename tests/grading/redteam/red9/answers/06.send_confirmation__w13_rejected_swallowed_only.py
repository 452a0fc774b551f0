# wrong (propagate): swallows EmailRejected (a refusal for good), lets transient errors through
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    try:
        send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=f"confirm:{booking_id}")
    except EmailRejected:
        return "rejected"
