# kind: wrong
# rule: one-room-own-hotel (all bookings of the hotel: takes a room per pending booking confirmed... by id typo: WHERE id = booking id)
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        if conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                        "RETURNING hotel_id", [booking_id]).fetchone():
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [booking_id])
