# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: correct (the hint's shape with a helper for "nothing to do", the lock via psycopg.sql)
def _nothing_to_do(conn, booking, booking_id):
    return booking is None or booking.status in ("cancelled",) or stayhub.invoice_exists(conn, booking_id)


def render_invoice(job, conn):
    """Render and store the booking's invoice: at most one per booking, none for a cancelled booking."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        # (B) make sure two runs of this job for one booking never both get past this point
        conn.execute(pgsql.SQL("SELECT {} FROM {} WHERE id = %s FOR NO KEY UPDATE").format(
            pgsql.Identifier("id"), pgsql.Identifier("bookings")), (booking_id,))
        booking = stayhub.booking(conn, booking_id)
        # (A) skip when there is nothing to do
        if _nothing_to_do(conn, booking, booking_id):
            return None
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
