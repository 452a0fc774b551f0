# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check (reads the booking, skips gone/cancelled, and only then locks and checks the invoice: a cancel committed while it waited for the lock is not seen)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    booking = stayhub.booking(conn, booking_id)
    if booking is None or booking.status == "cancelled":
        return
    with conn.transaction():
        conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
        if stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
