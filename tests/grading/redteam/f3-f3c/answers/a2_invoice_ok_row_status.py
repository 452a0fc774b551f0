# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: correct (reads the locked row itself, manual invoice lookup)
def render_invoice(job, conn):
    """Render and store the booking's invoice: at most one per booking, none for a cancelled booking."""
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        locked = conn.execute("SELECT b.status FROM bookings AS b WHERE b.id = %(id)s FOR NO KEY UPDATE OF b",
                              {"id": booking_id}).fetchone()
        if locked is None or locked[0] == "cancelled":
            return
        already = conn.execute("SELECT count(*) FROM invoices WHERE booking_id = %s", [booking_id]).fetchone()[0]
        if already:
            return
        booking = stayhub.booking(conn, booking_id)
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
