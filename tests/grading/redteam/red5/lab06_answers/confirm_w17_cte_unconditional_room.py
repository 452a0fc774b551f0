# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: one-room-own-hotel (a CTE that takes the room from the booking, changed or not)
def confirm_booking(job, conn):
    conn.execute("""
        WITH b AS (SELECT id, hotel_id FROM bookings WHERE id = %(id)s),
             c AS (UPDATE bookings SET status = 'confirmed' WHERE id = %(id)s AND status = 'pending' RETURNING hotel_id)
        UPDATE hotels SET rooms_left = rooms_left - 1 FROM b WHERE hotels.id = b.hotel_id""", {"id": job.payload["booking_id"]})
