# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: conditional (processed key checked with a SELECT: a race)
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm_booking:{booking_id}"
    with conn.transaction():
        if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
            return
        hotel = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'cancelled' "
                             "RETURNING hotel_id", [booking_id]).fetchone()
        if hotel:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel[0]])
        conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
