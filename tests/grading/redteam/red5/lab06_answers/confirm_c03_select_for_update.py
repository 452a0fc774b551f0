# EXERCISE: 06.confirm_booking
# EXPECT: correct
# RULE: correct (SELECT ... FOR UPDATE, then decide)
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if row is None or row[0] != "pending":
            return "nothing to do"
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[1]])
        return "confirmed"
