# WRONG (conditional / one-transaction): REPEATABLE READ, and a serialization failure swallowed as
# "someone else did it" -- but the room update failing is swallowed too
import psycopg as _pg


def confirm_booking(job, conn):
    try:
        with conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                                   "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
            if changed:
                conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
    except _pg.Error:
        return None
