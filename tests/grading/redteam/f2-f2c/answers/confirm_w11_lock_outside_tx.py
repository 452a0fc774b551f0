# WRONG (conditional): SELECT ... FOR UPDATE on the autocommit connection (the lock ends with the
# statement), then the unconditional writes in a transaction
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    status, hotel_id = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s FOR UPDATE",
                                    [booking_id]).fetchone()
    if status != "pending":
        return
    with conn.transaction():
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
