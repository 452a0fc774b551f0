# exercise: 12.checkout
# cell: ac4d5e5b
# rule: given-connection / one-transaction (the jobs go through a second connection: committed before the booking, left behind by a rollback)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        with psycopg.connect(conn.info.dsn, autocommit=True) as side:
            side.execute(pgsql.SQL("SET search_path TO {}").format(
                pgsql.Identifier(conn.execute("SELECT current_schema()").fetchone()[0])))
            for job_type in stayhub.SIDE_JOBS:
                queue.enqueue(side, job_type, {"booking_id": booking_id})
    return booking_id
