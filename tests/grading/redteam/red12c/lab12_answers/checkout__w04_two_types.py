# wrong (side-jobs): the job types written out by hand, the channel-manager sync forgotten
def checkout(conn, guest_id, room_id, nights):
    payment = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in ("send_confirmation_email", "render_invoice"):
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
