# wrong (one-transaction): a failed room update swallowed in a savepoint: the booking is confirmed with no room taken
def confirm_booking(job, conn):
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if row:
            try:
                with conn.transaction():
                    conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[0]])
            except Exception as error:
                print("could not take the room:", error)
