# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: correct (the lock in its own statement, then one CTE statement reads status and invoice together)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        conn.execute("SELECT id FROM bookings WHERE id = %(id)s FOR NO KEY UPDATE", {"id": booking_id})
        row = conn.execute("""
            WITH b AS (SELECT id, status FROM bookings WHERE id = %(id)s)
            SELECT b.status, EXISTS (SELECT 1 FROM invoices i WHERE i.booking_id = b.id) FROM b
        """, {"id": booking_id}).fetchone()
        if row is None or row[0] == "cancelled" or row[1]:
            return
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(stayhub.booking(conn, booking_id)))
