# replay of checkout__w_latest_by_guest_room (same code), to see the pass is not luck
# WRONG (return-id): returns "the guest's latest booking of that room", read after the commit: another
# checkout of the same guest and room committing meanwhile makes it return that one.
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return conn.execute("SELECT id FROM bookings WHERE guest_id = %s AND room_id = %s ORDER BY id DESC LIMIT 1",
                        [guest_id, room_id]).fetchone()[0]
