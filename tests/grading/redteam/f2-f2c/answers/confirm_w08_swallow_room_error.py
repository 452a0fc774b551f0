# WRONG (one-transaction): a failing room update is caught inside the transaction (a savepoint), so the
# booking commits confirmed with no room taken
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            try:
                with conn.transaction():
                    conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
            except Exception as error:
                print("could not take a room:", error)
