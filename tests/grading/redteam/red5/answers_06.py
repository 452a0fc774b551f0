C, S = "06.confirm_booking", "06.send_confirmation"
ANSWERS = {
# ---------------- 06.confirm_booking: wrong
"confirm_w01_naive": (C, "wrong", "conditional (no WHERE status)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        hotel_id = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s RETURNING hotel_id",
                                [booking_id]).fetchone()[0]
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
'''),
"confirm_w02_select_then_update": (C, "wrong", "conditional (SELECT status, then UPDATE: a race)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        status, hotel_id = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s", [booking_id]).fetchone()
        if status != "pending":
            return
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
'''),
"confirm_w03_hotel_1": (C, "wrong", "one-room-own-hotel (hotel 1 hard-coded)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = 1")
'''),
"confirm_w04_two_commits": (C, "wrong", "one-transaction (autocommit)", '''
def confirm_booking(job, conn):
    changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                           "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
    if changed:
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_w05_raises_when_not_pending": (C, "wrong", "nothing-to-do (raises)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [booking_id]).fetchone()
        if changed is None:
            raise ValueError(f"booking {booking_id} is not pending")
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_w06_not_confirmed_condition": (C, "wrong", "conditional (a cancelled booking gets confirmed)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'confirmed' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_w07_room_every_time": (C, "wrong", "one-room-own-hotel (room taken whether or not it changed)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending'", [booking_id])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 "
                     "WHERE id = (SELECT hotel_id FROM bookings WHERE id = %s)", [booking_id])
'''),
"confirm_w08_rooms_first_subquery": (C, "wrong", "conditional (room taken first, decided by a read: a race)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        taken = conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 "
                             "WHERE id = (SELECT hotel_id FROM bookings WHERE id = %s AND status = 'pending')",
                             [booking_id]).rowcount
        if taken:
            conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
'''),
"confirm_w09_rooms_read_in_python": (C, "wrong", "one-room-own-hotel (rooms_left read, then written: a lost update)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [booking_id]).fetchone()
        if changed:
            (left,) = conn.execute("SELECT rooms_left FROM hotels WHERE id = %s", [changed[0]]).fetchone()
            conn.execute("UPDATE hotels SET rooms_left = %s WHERE id = %s", [left - 1, changed[0]])
'''),
"confirm_w10_nights": (C, "wrong", "one-room-own-hotel (a room per night)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id, nights", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - %s WHERE id = %s", [changed[1], changed[0]])
'''),
"confirm_w11_swallows": (C, "wrong", "one-transaction (a failed room update swallowed: no retry)", '''
def confirm_booking(job, conn):
    try:
        with conn.transaction():
            changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                                   "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
            if changed:
                conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
    except Exception as error:
        print(f"could not confirm booking {job.payload['booking_id']}: {error}")
'''),
"confirm_w12_job_id": (C, "wrong", "conditional (the job's id, not the booking's)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.id]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_w13_repeatable_read": (C, "wrong", "conditional / nothing-to-do (arguable: REPEATABLE READ raises for the second worker)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_w14_processed_key_select": (C, "wrong", "conditional (processed key checked with a SELECT: a race)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm_booking:{booking_id}"
    with conn.transaction():
        if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
            return
        hotel = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status <> 'cancelled' "
                             "RETURNING hotel_id", [booking_id]).fetchone()
        if hotel:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel[0]])
        conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
'''),
"confirm_w15_room_in_second_transaction": (C, "wrong", "one-transaction (the room in a transaction of its own)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
    if changed:
        with conn.transaction():
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_w16_greatest_zero": (C, "wrong", "one-room-own-hotel (never below zero: a room not taken)", '''
def confirm_booking(job, conn):
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' "
                               "RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = greatest(rooms_left - 1, 0) WHERE id = %s", [changed[0]])
'''),
"confirm_w17_cte_unconditional_room": (C, "wrong", "one-room-own-hotel (a CTE that takes the room from the booking, changed or not)", '''
def confirm_booking(job, conn):
    conn.execute("""
        WITH b AS (SELECT id, hotel_id FROM bookings WHERE id = %(id)s),
             c AS (UPDATE bookings SET status = 'confirmed' WHERE id = %(id)s AND status = 'pending' RETURNING hotel_id)
        UPDATE hotels SET rooms_left = rooms_left - 1 FROM b WHERE hotels.id = b.hotel_id""", {"id": job.payload["booking_id"]})
'''),
# ---------------- 06.confirm_booking: correct
"confirm_c01_hint": (C, "correct", "correct (hint 3 word for word)", '''
def confirm_booking(job, conn):
    """Confirm a pending booking and take one room for it — once, however often the job runs."""
    with conn.transaction():
        changed = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id", [job.payload["booking_id"]]).fetchone()
        if changed:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [changed[0]])
'''),
"confirm_c02_one_cte": (C, "correct", "correct (one statement: a data-modifying CTE)", '''
CONFIRM = """
WITH confirmed AS (
    UPDATE bookings SET status = 'confirmed'
    WHERE id = %(booking)s AND status = 'pending'
    RETURNING hotel_id
)
UPDATE hotels h SET rooms_left = h.rooms_left - 1
FROM confirmed c WHERE h.id = c.hotel_id
RETURNING h.id
"""

def confirm_booking(job, conn):
    return conn.execute(CONFIRM, {"booking": job.payload["booking_id"]}).fetchone() is not None
'''),
"confirm_c03_select_for_update": (C, "correct", "correct (SELECT ... FOR UPDATE, then decide)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("SELECT status, hotel_id FROM bookings WHERE id = %s FOR UPDATE", [booking_id]).fetchone()
        if row is None or row[0] != "pending":
            return "nothing to do"
        conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s", [booking_id])
        conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [row[1]])
        return "confirmed"
'''),
"confirm_c04_begin_commit_rowcount": (C, "correct", "correct (BEGIN/COMMIT by hand, rowcount)", '''
def confirm_booking(job, conn):
    conn.execute("BEGIN")
    try:
        cur = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE id = %s AND status = 'pending' RETURNING hotel_id",
                           (job.payload["booking_id"],))
        if cur.rowcount == 1:
            hotel_id, = cur.fetchone()
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", (hotel_id,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
'''),
"confirm_c05_processed_key_too": (C, "correct", "correct (a processed key as well, ON CONFLICT)", '''
def confirm_booking(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [f"booking-confirmed:{booking_id}"])
        hotel = conn.execute("UPDATE bookings SET status = 'confirmed' WHERE status = 'pending' AND id = %s "
                             "RETURNING hotel_id", [booking_id]).fetchall()
        for (hotel_id,) in hotel:
            conn.execute("UPDATE hotels SET rooms_left = rooms_left - 1 WHERE id = %s", [hotel_id])
'''),
# ---------------- 06.send_confirmation: wrong
"send_w01_no_key": (S, "wrong", "key-names-the-effect / exactly-one (no key)", '''
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body)
'''),
"send_w02_job_id_key": (S, "wrong", "key-names-the-effect (the job's id)", '''
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{job.id}")
'''),
"send_w03_attempt_key": (S, "wrong", "key-names-the-effect (the attempt)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}:{job.attempts}")
'''),
"send_w04_swallows": (S, "wrong", "propagate (errors swallowed)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        print(f"booking {booking_id}: the provider said {error}")
'''),
"send_w05_mark_commit_then_send": (S, "wrong", "exactly-one (marked and committed before sending)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                    [f"confirm:{booking_id}"]).rowcount:
        to, subject, body = confirmation_email(conn, booking_id)
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
'''),
"send_w06_processed_row_no_key": (S, "wrong", "key-names-the-effect / exactly-one (a processed row, no key)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING",
                        [f"confirm:{booking_id}"]).rowcount:
            send_email(provider_url(), *confirmation_email(conn, booking_id))
'''),
"send_w07_dash_key": (S, "wrong", "key-names-the-effect (arguable: 'confirm-<id>', not 'confirm:<id>')", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm-{booking_id}")
'''),
"send_w08_select_then_send_no_key": (S, "wrong", "exactly-one (SELECT processed, send without a key, then mark)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
        return
    send_email(provider_url(), *confirmation_email(conn, booking_id))
    conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
'''),
"send_w09_email_key": (S, "wrong", "key-names-the-effect (the address: two bookings, one email)", '''
def send_confirmation(job, conn):
    to, subject, body = confirmation_email(conn, job.payload["booking_id"])
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{to}")
'''),
"send_w10_retries_then_gives_up": (S, "wrong", "propagate (three tries in the handler, then silence)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    for _ in range(3):
        try:
            send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
            return
        except Exception:
            time.sleep(0.1)
'''),
"send_w11_rewraps_error": (S, "wrong", "propagate (arguable: a RuntimeError instead of the provider's error)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except Exception as error:
        raise RuntimeError(f"confirmation for booking {booking_id} failed: {error}") from None
'''),
"send_w12_key_only_on_retry": (S, "wrong", "key-names-the-effect (key only from attempt 2)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    key = f"confirm:{booking_id}" if job.attempts > 1 else None
    send_email(provider_url(), to, subject, body, idempotency_key=key)
'''),
"send_w13_rejected_swallowed": (S, "wrong", "propagate (EmailRejected swallowed)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    try:
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    except EmailRejected:
        pass  # a bad address: nothing we can do
'''),
"send_w14_guest_key": (S, "wrong", "key-names-the-effect (the guest's name)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    guest = conn.execute("SELECT guest FROM bookings WHERE id = %s", [booking_id]).fetchone()[0]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{guest}")
'''),
"send_w15_sends_twice": (S, "wrong", "exactly-one (a second send with another key, 'to be sure')", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
    if job.attempts > 1:   # a retry: the first send may have been lost, send a fresh one
        send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}:resend")
'''),
# ---------------- 06.send_confirmation: correct
"send_c01_hint": (S, "correct", "correct (hint 4 word for word)", '''
def send_confirmation(job, conn):
    """Send a booking's confirmation email so that the guest gets exactly one, however often this runs."""
    booking_id = job.payload["booking_id"]
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=f"confirm:{booking_id}")
'''),
"send_c02_two_layers": (S, "correct", "correct (StayHub's two layers: a processed row and the key, one transaction)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    with conn.transaction():
        if conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING RETURNING key", [key]).fetchone():
            send_email(provider_url(), *confirmation_email(conn, booking_id), idempotency_key=key)
'''),
"send_c03_percent_format": (S, "correct", "correct (%-formatting, keyword args)", '''
def send_confirmation(job, conn):
    email = confirmation_email(conn, booking_id := job.payload["booking_id"])
    send_email(provider_url(), to=email[0], subject=email[1], body=email[2], idempotency_key="confirm:%d" % booking_id)
    return "sent"
'''),
"send_c04_select_key_then_mark": (S, "correct", "correct (SELECT processed, send with the key, mark afterwards)", '''
def send_confirmation(job, conn):
    booking_id = job.payload["booking_id"]
    key = f"confirm:{booking_id}"
    if conn.execute("SELECT 1 FROM processed WHERE key = %s", [key]).fetchone():
        return
    to, subject, body = confirmation_email(conn, booking_id)
    send_email(provider_url(), to, subject, body, idempotency_key=key)
    conn.execute("INSERT INTO processed (key) VALUES (%s) ON CONFLICT DO NOTHING", [key])
'''),
}
