# expect: fail nothing-to-do: skips only when there are 2+ invoices (off by one)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or conn.execute("SELECT count(*) FROM invoices WHERE booking_id = %s", [booking_id]).fetchone()[0] > 1:
            return
        pdf = stayhub.render_invoice_pdf(booking)
        stayhub.store_invoice(conn, booking_id, pdf)
