# EXERCISE: 06.confirm_booking
# EXPECT: correct
# RULE: correct (one statement: a data-modifying CTE)
CONFIRM = """
WITH confirmed AS (
    UPDATE bookings SET status = 'confirmed'
    WHERE id = %(booking)s AND status = 'pending'
    RETURNING hotel_id
)
UPDATE hotels h SET rooms_left = h.rooms_left - 1
FROM confirmed c WHERE h.id = c.hotel_id
RETURNING h.id
"""

def confirm_booking(job, conn):
    return conn.execute(CONFIRM, {"booking": job.payload["booking_id"]}).fetchone() is not None
