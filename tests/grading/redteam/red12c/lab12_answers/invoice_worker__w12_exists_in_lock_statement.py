# intended correct, actually WRONG (found by the check): the EXISTS runs on the snapshot taken before the lock wait, so a second run that waited still sees "no invoice" (READ COMMITTED re-checks only the locked row)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("SELECT b.status, EXISTS (SELECT 1 FROM invoices i WHERE i.booking_id = b.id) "
                           "FROM bookings b WHERE b.id = %s FOR NO KEY UPDATE OF b", [booking_id]).fetchone()
        if row is None:
            return  # the booking is gone
        status, invoiced = row
        if status == "cancelled" or invoiced:
            return
        booking = stayhub.booking(conn, booking_id)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
