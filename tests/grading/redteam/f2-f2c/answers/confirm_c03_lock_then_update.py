# CORRECT: the row locked first inside the transaction, a processed key as bookkeeping, explicit BEGIN
def confirm_booking(job, conn):
    booking = int(job.payload["booking_id"])
    conn.execute("BEGIN")
    try:
        row = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s FOR UPDATE", (booking,)).fetchone()
        if row is not None and row[0] == "pending":
            conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
                         (booking,))
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", (row[1],))
            conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", (f"room:{booking}",))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
