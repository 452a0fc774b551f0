# kind: correct
# rule: correct (explicit BEGIN/COMMIT, a processed key of its own as well, returns a word)
def confirm_booking(job, conn):
    booking_id = int(job.payload["booking_id"])
    conn.execute("BEGIN")
    try:
        cur = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", (booking_id,))
        if cur.rowcount == 1:
            (hotel_id,) = cur.fetchone()
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", (hotel_id,))
            conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", (f"confirm-room:{booking_id}",))
            outcome = "confirmed"
        else:
            outcome = "nothing to do"
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return outcome
