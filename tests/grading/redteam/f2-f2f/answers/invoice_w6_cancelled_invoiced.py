# exercise: 12.invoice_worker
# expect: wrong
# rule: nothing-to-do: a cancelled booking still gets its invoice
def render_invoice(job, conn):
    """Render and store the booking's invoice: at most one per booking, none for a cancelled booking."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        # (B) make sure two runs of this job for one booking never both get past this point
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        # (A) skip when there is nothing to do
        if booking is None or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
