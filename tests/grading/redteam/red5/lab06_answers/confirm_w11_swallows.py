# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: one-transaction (a failed room update swallowed: no retry)
def confirm_booking(job, conn):
    try:
        with conn.transaction():
            changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                                   "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
            if changed:
                conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
    except Exception as error:
        print(f"could not confirm booking {job.payload['booking_id']}: {error}")
