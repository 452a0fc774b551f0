# EXERCISE: 06.send_confirmation
# EXPECT: correct
# RULE: correct (%-formatting, keyword args)
def send_confirmation(job, conn):
    email = confirmation_email(conn, booking_id := job.payload["booking_id"])
    send_email(provider_url(), to=email[0], subject=email[1], body=email[2], idempotency_key="confirm:%d" % booking_id)
    return "sent"
