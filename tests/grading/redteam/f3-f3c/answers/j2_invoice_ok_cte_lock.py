# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: lock-then-check — written as a correct answer, but wrong: the invoice EXISTS runs in the locking statement, whose snapshot predates the lock wait (READ COMMITTED re-reads only the locked row)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("""
            WITH b AS (SELECT id, status FROM bookings WHERE id = %(id)s FOR NO KEY UPDATE)
            SELECT b.status, EXISTS (SELECT 1 FROM invoices i WHERE i.booking_id = b.id) FROM b
        """, {"id": booking_id}).fetchone()
        if row is None:
            return
        status, has_invoice = row
        if status == "cancelled" or has_invoice:
            return
        booking = stayhub.booking(conn, booking_id)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
