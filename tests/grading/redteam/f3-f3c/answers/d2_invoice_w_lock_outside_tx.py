# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check (the lock is taken on the autocommit connection before the transaction: released at once)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    conn.execute("SELECT 1 FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id])
    with conn.transaction():
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
