# correct: the transaction written out as BEGIN / COMMIT / ROLLBACK statements
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    conn.execute("BEGIN")
    try:
        new_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        queue.enqueue_many(conn, stayhub.SIDE_JOBS[0], [{"booking_id": new_id}])
        queue.enqueue_many(conn, stayhub.SIDE_JOBS[1], [{"booking_id": new_id}])
        queue.enqueue_many(conn, stayhub.SIDE_JOBS[2], [{"booking_id": new_id}])
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return new_id
