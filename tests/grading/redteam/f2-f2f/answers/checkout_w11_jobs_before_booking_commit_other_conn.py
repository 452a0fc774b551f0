# exercise: 12.checkout
# expect: wrong
# rule: one-transaction: the jobs are written on a second connection of their own (committed even when the booking is not)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    schema = conn.execute("SELECT current_schema()").fetchone()[0]
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        with db.connect(schema) as side:
            for kind in stayhub.SIDE_JOBS:
                queue.enqueue(side, kind, {"booking_id": booking_id})
    return booking_id
