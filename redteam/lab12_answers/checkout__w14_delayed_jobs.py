# expect: fail only-what-the-guest-waits-for/email within seconds: jobs delayed 60 s 'to let the commit land'
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id}, delay_s=60)
    return booking_id
