# exercise: 12.checkout
# cell: ac4d5e5b
# rule: given-connection (its own BEGIN and COMMIT: inside the caller's transaction, COMMIT ends the caller's)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    cur = conn.cursor()
    cur.execute("BEGIN")
    try:
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
        cur.execute("COMMIT")
    except Exception:
        cur.execute("ROLLBACK")
        raise
    return booking_id
