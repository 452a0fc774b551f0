# correct: the three jobs inserted in one SQL statement, in the booking's transaction
import json as _json


def checkout(conn, guest_id, room_id, nights):
    p = stayhub.charge(conn, guest_id, room_id, nights)
    with conn.transaction():
        bid = stayhub.insert_booking(conn, guest_id, room_id, nights, p)
        conn.execute("INSERT INTO jobs (type, payload, max_attempts) "
                     "SELECT t, %s::jsonb, 8 FROM unnest(%s::text[]) AS t",
                     [_json.dumps({"booking_id": bid}), list(stayhub.SIDE_JOBS)])
    return bid
