# kind: wrong
# rule: one-transaction (two autocommit statements: a failing room update leaves the booking confirmed)
def confirm_booking(job, conn):
    changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
    if changed:
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
