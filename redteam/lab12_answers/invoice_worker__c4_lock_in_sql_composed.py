# expect: pass correct: lock via psycopg.sql composed, skip logic in a helper
def nothing_to_do(conn, booking):
    return booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking.id)


def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute(pgsql.SQL("SELECT id FROM {} WHERE id = %s FOR NO KEY UPDATE").format(pgsql.Identifier("bookings")), (booking_id,))
        booking = stayhub.booking(conn, booking_id)
        if nothing_to_do(conn, booking):
            return None
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
