# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check (locks the invoices rows, of which there are none yet: nothing serialises two runs)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT number FROM invoices WHERE booking_id = %s FOR NO KEY UPDATE", [booking_id])
        booking = stayhub.booking(conn, booking_id)
        if booking is None or booking.status == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        pdf = stayhub.render_invoice_pdf(booking)          # ~1.5 s
        stayhub.store_invoice(conn, booking_id, pdf)
