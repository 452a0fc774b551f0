# wrong (nothing-to-do): raises when the booking is not pending
def confirm_booking(job, conn):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if row is None:
            raise ValueError(f"booking {job.payload['booking_id']} is not pending")
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[0]])
