# expect: fail lock-then-check: locks the invoice rows (none yet), not the booking
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM invoices WHERE booking_id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)
        stayhub.store_invoice(conn, booking_id, pdf)
