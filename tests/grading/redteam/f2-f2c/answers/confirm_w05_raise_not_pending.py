# WRONG (nothing-to-do): raises when the booking is not pending
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [booking_id]).fetchone()
        if changed is None:
            raise ValueError(f"booking {booking_id} is not pending")
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
