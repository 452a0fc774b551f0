# wrong (race, correct only when nobody else is connected): reads rooms_left, writes back the value minus one: two bookings of one hotel confirmed at once lose a room
def confirm_booking(job, conn):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if row:
            (left,) = conn.execute("SELECT rooms_left FROM hotels WHERE id = %s", [row[0]]).fetchone()
            conn.execute("UPDATE hotels SET rooms_left = %s WHERE id = %s", [left - 1, row[0]])
