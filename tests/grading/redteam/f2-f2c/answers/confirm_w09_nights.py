# WRONG (one room): takes one room per night
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id, nights", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - %s WHERE id = %s", [changed[1], changed[0]])
