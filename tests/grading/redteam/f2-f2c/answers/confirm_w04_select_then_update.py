# WRONG (conditional): reads the status, then updates by id alone: two workers both see 'pending'
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        status, hotel_id = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s", [booking_id]).fetchone()
        if status == "pending":
            conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
