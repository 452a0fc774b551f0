# EXERCISE: 06.confirm_booking
# EXPECT: wrong
# RULE: conditional (room taken first, decided by a read: a race)
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        taken = conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 "
                             "WHERE id = (SELECT hotel_id FROM bookings WHERE id = %s AND status = 'pending')",
                             [booking_id]).rowcount
        if taken:
            conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
