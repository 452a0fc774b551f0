# CORRECT: one statement: the conditional UPDATE in a CTE, the room taken FROM it
def confirm_booking(job, conn):
    conn.execute("""
        WITH booked AS (
            UPDATE bookings SET status = 'confirmed'
             WHERE id = %(booking)s AND status = 'pending'
            RETURNING hotel_id)
        UPDATE hotels AS h SET rooms_left = h.rooms_left - 1
          FROM booked
         WHERE h.id = booked.hotel_id""", {"booking": job.payload["booking_id"]})
    return "done"
