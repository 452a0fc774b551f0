# WRONG (conditional): "done already?" asked with a SELECT on processed, unconditional update after
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm-booking:{booking_id}"
    with conn.transaction():
        if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
            return
        hotel_id = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'cancelled' "
                                "RETURNING hotel_id", [booking_id]).fetchone()
        if hotel_id:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id[0]])
        conn.execute("INSERT INTO processed (key) VALUES (%s)", [key])
