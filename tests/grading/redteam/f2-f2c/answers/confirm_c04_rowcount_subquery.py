# CORRECT: a cursor, rowcount, the hotel found again by a subquery after the change
def confirm_booking(job, conn):
    booking_id = job.payload.get("booking_id")
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("UPDATE bookings SET status = 'confirmed' WHERE status = 'pending' AND id = %s RETURNING hotel_id",
                    (booking_id,))
        if cur.rowcount != 1:
            return None
        cur.execute("UPDATE hotels SET rooms_left = rooms_left - 1 "
                    "WHERE id IN (SELECT hotel_id FROM bookings WHERE id = %s)", (booking_id,))
        return True
