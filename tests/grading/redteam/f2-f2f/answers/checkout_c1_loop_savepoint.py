# exercise: 12.checkout
# expect: correct
# rule: correct: the transaction as a local name, jobs built as a list first, enqueue with named queue
def checkout(conn, guest_id, room_id, nights):
    """Charge the card; store the booking and its three jobs in one transaction; return the booking's id."""
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    tx = conn.transaction()
    with tx:
        new_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        wanted = [(kind, {"booking_id": new_id}) for kind in stayhub.SIDE_JOBS]
        for kind, body in wanted:
            queue.enqueue(conn, kind, body, queue="default")
    return new_id
