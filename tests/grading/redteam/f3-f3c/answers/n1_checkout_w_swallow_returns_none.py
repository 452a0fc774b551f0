# exercise: 12.checkout
# cell: ac4d5e5b
# rule: one-transaction / return-id (a failed transaction is logged and None returned: the API answers as if booked)
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    try:
        with conn.transaction():
            booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
            for job_type in stayhub.SIDE_JOBS:
                queue.enqueue(conn, job_type, {"booking_id": booking_id})
    except psycopg.Error as error:
        print(f"checkout failed, rolled back: {error}")
        return None
    return booking_id
