# expect: fail lock-then-check: the lock taken before the transaction (autocommit: released at once)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
    with conn.transaction():
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)
        stayhub.store_invoice(conn, booking_id, pdf)
