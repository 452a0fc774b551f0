# EXERCISE: 06.confirm_booking
# EXPECT: correct
# RULE: correct (a processed key as well, ON CONFLICT)
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [f"booking-confirmed:{booking_id}"])
        hotel = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE status = 'pending' AND id = %s "
                             "RETURNING hotel_id", [booking_id]).fetchall()
        for (hotel_id,) in hotel:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
