# EXERCISE: 06.confirm_booking
# EXPECT: correct
# RULE: correct (hint 3 word for word)
def confirm_booking(job, conn):
    """Confirm a pending booking and take one room for it — once, however often the job runs."""
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
