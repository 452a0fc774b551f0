# wrong (one-room-own-hotel: one room): takes a room per night
def confirm_booking(job, conn):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id, nights", [job.payload["booking_id"]]).fetchone()
        if row:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - %s WHERE id = %s", [row[1], row[0]])
