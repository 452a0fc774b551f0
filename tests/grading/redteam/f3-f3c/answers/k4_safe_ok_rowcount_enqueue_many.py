# exercise: 12.safe_checkout
# cell: b374957a
# rule: correct (rowcount guard, enqueue_many per type, reconcile newest first, dict rows)
from psycopg.rows import dict_row


def finish(conn, booking_id, payment):
    with conn.transaction():
        updated = conn.execute("UPDATE bookings AS b SET status = 'confirmed', payment_ref = %(ref)s "
                               "WHERE b.id = %(id)s AND b.status = 'pending'",
                               {"ref": payment.ref, "id": booking_id}).rowcount
        if updated == 0:
            return False
        for kind in stayhub.SIDE_JOBS:
            queue.enqueue_many(conn, kind, [{"booking_id": booking_id}])
        return True


def safe_checkout(conn, guest_id, room_id, nights):
    new_id = stayhub.insert_pending(conn, guest_id, room_id, nights)
    paid = stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(new_id))
    finish(conn, new_id, paid)
    return new_id


def reconcile(conn):
    with conn.cursor(row_factory=dict_row) as cur:
        pending = cur.execute("SELECT * FROM bookings WHERE status = 'pending' ORDER BY id DESC").fetchall()
    for b in pending:
        paid = stayhub.charge(conn, b["guest_id"], b["room_id"], b["nights"],
                              idempotency_key=stayhub.checkout_key(b["id"]))
        finish(conn, b["id"], paid)
    return len(pending)
