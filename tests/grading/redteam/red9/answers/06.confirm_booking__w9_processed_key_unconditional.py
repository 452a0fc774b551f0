# wrong (conditional / nothing-to-do): a processed key instead of the condition: a cancelled booking gets confirmed
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                        [f"confirm:{booking_id}"]).rowcount:
            hotel_id = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s RETURNING hotel_id",
                                    [booking_id]).fetchone()[0]
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
