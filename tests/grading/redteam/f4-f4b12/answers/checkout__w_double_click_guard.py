# WRONG (whole-stay / return-id / side-jobs): a "double-click guard": the same guest, room and nights
# booked in the last 30 seconds returns that booking's id, charging and storing nothing for this checkout.
def checkout(conn, guest_id, room_id, nights):
    recent = conn.execute("SELECT id FROM bookings WHERE guest_id = %s AND room_id = %s AND nights = %s "
                          "AND created_at > now() - interval '30 seconds' ORDER BY id DESC LIMIT 1",
                          [guest_id, room_id, nights]).fetchone()
    if recent is not None:
        return recent[0]
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
