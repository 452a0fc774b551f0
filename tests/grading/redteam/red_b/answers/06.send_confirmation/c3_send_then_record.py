# kind: correct
# rule: correct (sends with the key, then records a processed row afterwards; keyword args, a helper)
def _key(booking_id):
    return "confirm:" + str(booking_id)


def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    email = confirmation_email(conn, booking_id)
    send_email(provider_url(), *email, idempotency_key=_key(booking_id))
    conn.execute("INSERT INTO processed (key, done_at) VALUES (%s, now()) ON CONFLICT (key) DO NOTHING",
                 [_key(booking_id)])
