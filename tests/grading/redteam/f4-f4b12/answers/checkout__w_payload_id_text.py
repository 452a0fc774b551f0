# WRONG (side-jobs: payload {"booking_id": <id>}): the id stored as text ("981"), from an f-string
# built JSON; the handlers' payload declares an int.
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            conn.execute("INSERT INTO jobs (type, payload) VALUES (%s, %s::jsonb)",
                         [job_type, f'{{"booking_id": "{booking_id}"}}'])
    return booking_id
