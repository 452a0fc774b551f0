# correct: RETURNING used as a flag; the hotel found again by a subquery
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE status = 'pending' AND id = %s "
                               "RETURNING hotel_id", [booking_id]).fetchall()
        if len(changed) == 1:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 "
                         "WHERE id = (SELECT hotel_id FROM bookings WHERE id = %s)", [booking_id])
    return bool(changed)
