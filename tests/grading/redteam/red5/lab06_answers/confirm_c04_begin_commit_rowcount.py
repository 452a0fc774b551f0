# EXERCISE: 06.confirm_booking
# EXPECT: correct
# RULE: correct (BEGIN/COMMIT by hand, rowcount)
def confirm_booking(job, conn):
    conn.execute("BEGIN")
    try:
        cur = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
                           (job.payload["booking_id"],))
        if cur.rowcount == 1:
            hotel_id, = cur.fetchone()
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", (hotel_id,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
