# wrong (one-transaction on conn): the jobs go through a second connection's transaction, committed before the booking's
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        with db.connect(schema) as jobs_conn:
            for job_type in stayhub.SIDE_JOBS:
                queue.enqueue(jobs_conn, job_type, {"booking_id": booking_id})
    return booking_id
