# correct, unlike the obvious: the three jobs in one INSERT ... SELECT FROM unnest(), payload built by
# jsonb_build_object, all inside a savepoint-safe `with conn.transaction()`; keyword arguments.
def checkout(conn, guest_id, room_id, nights):
    """Charge the card; store the booking and its three jobs in one transaction; return the booking's id."""
    payment = stayhub.charge(conn, guest_id=guest_id, room_id=room_id, nights=nights)
    with conn.transaction():
        booking_id = stayhub.insert_booking(conn, guest_id=guest_id, room_id=room_id, nights=nights,
                                            payment=payment)
        conn.execute(
            "INSERT INTO jobs (type, payload) "
            "SELECT kind, jsonb_build_object('booking_id', %(id)s::bigint) FROM unnest(%(kinds)s::text[]) AS kind",
            {"id": booking_id, "kinds": list(stayhub.SIDE_JOBS)})
    return booking_id
