# kind: wrong
# rule: one-room-own-hotel (reads rooms_left, writes back the number minus one: two bookings of one hotel lose a room)
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            (left,) = conn.execute("SELECT rooms_left FROM hotels WHERE id = %s", [changed[0]]).fetchone()
            conn.execute("UPDATE hotels SET rooms_left = %s WHERE id = %s", [left - 1, changed[0]])
