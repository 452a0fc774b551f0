# kind: wrong
# rule: one-transaction (room taken after the commit, its failure logged and swallowed)
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
    if changed:
        try:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
        except Exception as error:
            print("could not take the room:", error)
