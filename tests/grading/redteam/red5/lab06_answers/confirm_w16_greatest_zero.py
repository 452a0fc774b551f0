# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: one-room-own-hotel (never below zero: a room not taken)
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = greatest(rooms_left - 1, 0) WHERE id = %s", [changed[0]])
