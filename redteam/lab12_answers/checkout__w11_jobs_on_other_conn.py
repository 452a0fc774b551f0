# expect: fail one-transaction: jobs on a second connection (committed even if the booking rolls back)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        with psycopg.connect(conn.info.dsn, autocommit=True) as jobs_conn:
            jobs_conn.execute(pgsql.SQL("SET search_path TO {}").format(pgsql.Identifier(conn.execute("SELECT current_schema()").fetchone()[0])))
            for job_type in stayhub.SIDE_JOBS:
                queue.enqueue(jobs_conn, job_type, {"booking_id": booking_id})
    return booking_id
