# wrong (conditional: a cancelled booking): the condition is "not confirmed yet", which confirms a cancelled one
def confirm_booking(job, conn):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'confirmed' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if row:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[0]])
