# correct: lock the booking first (SELECT ... FOR UPDATE), then decide; plus a processed key of its own
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        found = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if found is None or found[0] != "pending":
            return "nothing to do"
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
                     [booking_id])
        conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [f"confirm-room:{booking_id}"])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [found[1]])
        return "confirmed"
