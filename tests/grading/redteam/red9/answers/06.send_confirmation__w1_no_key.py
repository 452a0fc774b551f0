# wrong (key-names-the-effect / exactly-one): no idempotency key
def send_confirmation(job, conn):
    send_email(provider_url(), *confirmation_email(conn, job.payload["booking_id"]))
