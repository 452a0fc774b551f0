# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: conditional (a cancelled booking gets confirmed)
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'confirmed' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
