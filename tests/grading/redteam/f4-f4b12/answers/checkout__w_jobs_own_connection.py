# WRONG (one-transaction / given-connection): the jobs through a connection of their own ("the queue's
# connection"), committed before the booking's transaction: a booking that rolls back leaves its jobs.
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    schema = queue.where(conn).schema
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        with db.connect(schema) as jobs_conn:
            for job_type in stayhub.SIDE_JOBS:
                queue.enqueue(jobs_conn, job_type, {"booking_id": booking_id})
    return booking_id
