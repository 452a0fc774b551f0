# wrong (one-transaction / only if changed): takes the room first, in its own commit, then confirms
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    status, hotel_id = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s", [booking_id]).fetchone()
    if status != "pending":
        return
    conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
    conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending'", [booking_id])
