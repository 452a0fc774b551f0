# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: one-transaction (autocommit)
def confirm_booking(job, conn):
    changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
    if changed:
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
