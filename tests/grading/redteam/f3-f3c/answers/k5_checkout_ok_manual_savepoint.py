# exercise: 12.checkout
# cell: ac4d5e5b
# rule: correct (its own BEGIN/COMMIT only when no transaction is open, a SAVEPOINT inside the caller's)
from psycopg.pq import TransactionStatus


def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    nested = conn.info.transaction_status != TransactionStatus.IDLE
    conn.execute("SAVEPOINT checkout" if nested else "BEGIN")
    try:
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
        conn.execute("RELEASE SAVEPOINT checkout" if nested else "COMMIT")
    except BaseException:
        conn.execute("ROLLBACK TO SAVEPOINT checkout" if nested else "ROLLBACK")
        raise
    return booking_id
