# correct: one statement, a data-modifying CTE: atomic on its own
def confirm_booking(job, conn):
    conn.execute("""
        WITH confirmed AS (
            UPDATE bookings SET status = 'confirmed'
            WHERE id = %(id)s AND status = 'pending'
            RETURNING hotel_id)
        UPDATE hotels h SET rooms_left = h.rooms_left - 1
        FROM confirmed c WHERE h.id = c.hotel_id""", {"id": job.payload["booking_id"]})
