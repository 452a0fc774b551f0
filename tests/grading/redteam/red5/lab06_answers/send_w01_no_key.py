# EXERCISE: 06.send_confirmation
# EXPECT: wrong
# RULE: key-names-the-effect / exactly-one (no key)
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body)
