# exercise: 12.checkout
# expect: wrong
# rule: (phase 2 experiment) checkout_w12 without its try/except: does the checkout's process reach an email provider at all?
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    email = stayhub.confirmation_email(stayhub.booking(conn, booking_id))
    send_email(stayhub.provider_url(), email.to, email.subject, email.body,
               idempotency_key=stayhub.confirmation_key(booking_id))
    return booking_id
