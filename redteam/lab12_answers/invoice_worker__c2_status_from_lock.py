# expect: pass correct: the lock's SELECT reads the status; EXISTS for the invoice
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("SELECT status FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id]).fetchone()
        if row is None or row[0] == "cancelled":
            return
        if conn.execute("SELECT EXISTS (SELECT 1 FROM invoices WHERE booking_id = %s)", [booking_id]).fetchone()[0]:
            return
        booking = stayhub.booking(conn, booking_id)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
