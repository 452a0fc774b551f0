# WRONG (one-room-own-hotel): hotel 1 hard-coded, as the demo's naive handler has it
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = 1")
