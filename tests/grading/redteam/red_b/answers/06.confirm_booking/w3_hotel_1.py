# kind: wrong
# rule: one-room-own-hotel (the room is taken from hotel 1, the demo's, whatever the booking's)
def confirm_booking(job, conn):
    with conn.transaction():
        if conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                        "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone():
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = 1")
