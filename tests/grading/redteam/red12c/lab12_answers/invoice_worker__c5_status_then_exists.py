# correct: the lock reads the status; the invoice is looked for in a second statement (a fresh snapshot after the wait)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("SELECT status FROM bookings WHERE id = %s FOR NO KEY UPDATE", [booking_id]).fetchone()
        if row is None or row[0] == "cancelled":
            return
        (invoiced,) = conn.execute("SELECT EXISTS (SELECT 1 FROM invoices WHERE booking_id = %s)",
                                   [booking_id]).fetchone()
        if invoiced:
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))
