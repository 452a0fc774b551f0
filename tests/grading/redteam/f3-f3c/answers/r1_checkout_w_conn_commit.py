# exercise: 12.checkout
# cell: ac4d5e5b
# rule: given-connection (conn.commit() after the block "to be sure it is saved": a caller's open transaction is committed or refused)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    if not conn.autocommit:
        conn.commit()
    return booking_id
