# wrong (charge-first / adversarial): retries the whole checkout once on a database error, charging again
def checkout(conn, guest_id, room_id, nights):
    for attempt in (1, 2):
        payment = stayhub.charge(conn, guest_id, room_id, nights)
        try:
            with conn.transaction():
                booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
                for job_type in stayhub.SIDE_JOBS:
                    queue.enqueue(conn, job_type, {"booking_id": booking_id})
            return booking_id
        except psycopg.Error:
            if attempt == 2:
                raise
