# exercise: 12.safe_checkout
# expect: correct
# rule: correct: confirm with a CTE-guarded UPDATE ... RETURNING, reconcile loops until no pending row is left
def finish(conn, booking_id, payment):
    with conn.transaction():
        row = conn.execute(
            "WITH c AS (UPDATE bookings b SET payment_ref = %(ref)s, status = 'confirmed' "
            "WHERE b.id = %(id)s AND b.status = 'pending' RETURNING b.id) SELECT count(*) FROM c",
            {"ref": payment.ref, "id": booking_id}).fetchone()
        if row[0] == 1:
            for t in stayhub.SIDE_JOBS:
                queue.enqueue(conn, t, {"booking_id": booking_id})
            return True
        return False


def safe_checkout(conn, guest_id, room_id, nights):
    bid = stayhub.insert_pending(conn, guest_id, room_id, nights)
    finish(conn, bid, stayhub.charge(conn, guest_id, room_id, nights, idempotency_key=stayhub.checkout_key(bid)))
    return bid


def reconcile(conn):
    seen = set()
    while True:
        rows = [r for r in conn.execute(
            "SELECT id, guest_id, room_id, nights FROM bookings WHERE status = 'pending'").fetchall()
            if r[0] not in seen]
        if not rows:
            return len(seen)
        for bid, g, r, n in rows:
            seen.add(bid)
            finish(conn, bid, stayhub.charge(conn, g, r, n, idempotency_key=stayhub.checkout_key(bid)))
