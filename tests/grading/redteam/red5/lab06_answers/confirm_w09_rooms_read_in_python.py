# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: one-room-own-hotel (rooms_left read, then written: a lost update)
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [booking_id]).fetchone()
        if changed:
            (left,) = conn.execute("SELECT rooms_left FROM hotels WHERE id = %s", [changed[0]]).fetchone()
            conn.execute("UPDATE hotels SET rooms_left = %s WHERE id = %s", [left - 1, changed[0]])
