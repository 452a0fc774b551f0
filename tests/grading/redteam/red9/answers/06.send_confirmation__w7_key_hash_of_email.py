# wrong (adversarial, key-names-the-effect): the key is Python's hash() of the email: randomised per process, so another worker sends again
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{hash((to, subject))}")
