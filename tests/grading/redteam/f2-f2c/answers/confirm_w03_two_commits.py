# WRONG (one-transaction): the booking change commits on its own (autocommit), then the room
def confirm_booking(job, conn):
    changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
    if changed:
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
