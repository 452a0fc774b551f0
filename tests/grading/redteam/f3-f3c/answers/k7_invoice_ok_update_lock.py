# exercise: 12.invoice_worker
# cell: 4f0ba0bb
# rule: correct (behaviourally: an UPDATE of a non-key column takes the same FOR NO KEY UPDATE row lock and returns the status read after it)
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        row = conn.execute("UPDATE bookings SET status = status WHERE id = %s RETURNING status", [booking_id]).fetchone()
        if row is None or row[0] == "cancelled" or stayhub.invoice_exists(conn, booking_id):
            return
        booking = stayhub.booking(conn, booking_id)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
