# kind: correct
# rule: correct (one statement: a CTE whose conditional UPDATE feeds the room update; autocommit makes it atomic)
def confirm_booking(job, conn):
    conn.execute("""
        WITH confirmed AS (
            UPDATE bookings SET status = 'confirmed'
            WHERE id = %(id)s AND status = 'pending'
            RETURNING hotel_id
        )
        UPDATE hotels SET rooms_left = hotels.rooms_left - 1
        FROM confirmed WHERE hotels.id = confirmed.hotel_id""", {"id": job.payload["booking_id"]})
