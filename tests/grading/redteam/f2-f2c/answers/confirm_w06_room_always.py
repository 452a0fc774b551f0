# WRONG (one-room-own-hotel: only if changed): the room is taken whether or not the booking changed
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending'", [booking_id])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 "
                     "WHERE id = (SELECT hotel_id FROM bookings WHERE id = %s)", [booking_id])
