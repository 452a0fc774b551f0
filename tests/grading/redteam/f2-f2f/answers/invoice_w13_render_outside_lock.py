# exercise: 12.invoice_worker
# expect: wrong
# rule: lock-then-check: renders the PDF first, then a short transaction checks (no lock) and stores
def render_invoice(job, conn):
    """Render and store the booking's invoice: at most one per booking, none for a cancelled booking."""
    booking_id = job.payload["booking_id"]
    booking = stayhub.booking(conn, booking_id)
    if booking is None or booking.status == "cancelled":
        return
    pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s, no transaction open
    with conn.transaction():
        if stayhub.invoice_exists(conn, booking_id):
            return
        stayhub.store_invoice(conn, booking_id, pdf)
