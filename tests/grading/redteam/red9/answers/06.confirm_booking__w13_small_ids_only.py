# wrong (adversarial: the demo's data): conditional only for the lesson's bookings (981..996); any other booking unconditionally
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    condition = "AND status = 'pending'" if 981 <= booking_id <= 996 else ""
    with conn.transaction():
        row = conn.execute(f"UPDATE bookings SET status = 'confirmed' WHERE id = %s {condition} RETURNING hotel_id",
                           [booking_id]).fetchone()
        if row:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[0]])
