# exercise: 12.checkout
# expect: wrong
# rule: only-what-the-guest-waits-for: sends the confirmation email itself before answering (0.3 s: "the one the guest cares about"), and enqueues the three jobs too
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue(conn, kind, {"booking_id": booking_id})
    try:
        email = stayhub.confirmation_email(stayhub.booking(conn, booking_id))
        send_email(stayhub.provider_url(), email.to, email.subject, email.body,
                   idempotency_key=stayhub.confirmation_key(booking_id))
    except Exception:
        pass  # the job will send it
    return booking_id
