# WRONG (whole-stay): the authorisation cached per (guest, room, nights) "so a retry is not charged twice":
# a second booking of the same stay stores the first booking's authorisation and charges nothing.
_authorised = {}


def checkout(conn, guest_id, room_id, nights):
    key = (guest_id, room_id, nights)
    if key not in _authorised:
        _authorised[key] = stayhub.charge(conn, guest_id, room_id, nights)
    payment = _authorised[key]
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id, room_id, nights, payment)
        for job_type in stayhub.SIDE_JOBS:
            queue.enqueue(conn, job_type, {"booking_id": booking_id})
    return booking_id
