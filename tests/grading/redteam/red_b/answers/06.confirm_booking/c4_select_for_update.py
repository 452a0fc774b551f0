# kind: correct
# rule: correct in behaviour (locks the booking with SELECT ... FOR UPDATE, then updates; not the statement's spelling)
def confirm_booking(job, conn):
    with conn.transaction():
        row = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s FOR UPDATE",
                           [job.payload["booking_id"]]).fetchone()
        if row is None or row[0] != "pending":
            return
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s RETURNING hotel_id",
                     [job.payload["booking_id"]])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[1]])
