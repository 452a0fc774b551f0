# WRONG (conditional): unconditional UPDATE, room taken every run
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        hotel_id = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s RETURNING hotel_id",
                                [booking_id]).fetchone()[0]
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
