# wrong (no-key-update): FOR UPDATE: the email's and the sync's rows wait for the invoice
def render_invoice(job, conn):
    """Render and store the booking's invoice: at most one per booking, none for a cancelled booking."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT id FROM bookings WHERE id = %s FOR UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
