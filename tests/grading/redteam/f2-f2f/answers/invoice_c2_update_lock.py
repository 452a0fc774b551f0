# exercise: 12.invoice_worker
# expect: correct
# rule: correct: a no-op UPDATE on a non-key column takes the same FOR NO KEY UPDATE row lock; guard clauses one by one
def render_invoice(job, conn):
    booking_id = job.payload["booking_id"]
    with conn.transaction():
        locked = conn.execute("UPDATE bookings SET status = status WHERE id = %s RETURNING status",
                              [booking_id]).fetchone()
        if locked is None:
            return
        if locked[0] == "cancelled":
            return
        if stayhub.invoice_exists(conn, booking_id):
            return
        booking = stayhub.booking(conn, booking_id)
        stayhub.store_invoice(conn, booking_id, stayhub.render_invoice_pdf(booking))
